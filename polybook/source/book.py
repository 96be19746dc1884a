"""The book's pages in reading order: the ``toc`` blocks from ``index.md`` down."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.source.model import Document, Toc
from polybook.source.parse import parse

ROOT_DOC = "index.md"


class BookInvalid(Exception):
    """Some pages could not be parsed; their errors are in the reporter."""


@dataclass(frozen=True)
class Book:
    """The parsed pages of a book, in book order (toc order, then the rest by name)."""

    config: BookConfig
    documents: tuple[Document, ...]


def source_files(config: BookConfig) -> list[str]:
    """Pages matched by ``[build] notebooks`` less ``exclusions``, relative POSIX paths."""
    found: set[str] = set()
    for pattern in config.notebooks:
        for path in config.root.glob(pattern):
            rel = path.relative_to(config.root).as_posix()
            if rel.startswith(("_build/", ".")) or not path.is_file():
                continue
            if not any(fnmatch.fnmatch(rel, ex) for ex in config.exclusions):
                found.add(rel)
    return sorted(found)


def toc_targets(doc: Document) -> list[tuple[str, int]]:
    """Pages linked by the toc blocks of ``doc``: (path relative to the root, toc line)."""
    base = PurePosixPath(doc.path).parent
    targets: list[tuple[str, int]] = []
    for block in doc.blocks:
        if isinstance(block, Toc):
            for offset, entry in enumerate(block.entries, start=1):
                name = entry if entry.endswith(".md") else f"{entry}.md"
                targets.append(((base / name).as_posix(), block.line + offset))
    return targets


def load_book(config: BookConfig, reporter: Reporter) -> Book:
    """Parse every page; order them by the toc tree from ``index.md``."""
    files = source_files(config)
    parsed: dict[str, Document] = {}
    failed = False
    for rel in files:
        text = (config.root / rel).read_text(encoding="utf-8")
        try:
            parsed[rel] = parse(text, rel, config.tabs)
        except PolybookError as err:
            reporter.error(err)
            failed = True
    if failed:
        raise BookInvalid()
    order: list[str] = []

    def visit(path: str) -> None:
        if path in order:
            return
        order.append(path)
        for target, line in toc_targets(parsed[path]):
            if target not in parsed:
                raise PolybookError(
                    Location(path, line),
                    f"toc entry {target!r} is not a page of the book",
                    "toc",
                )
            visit(target)

    if ROOT_DOC in parsed:
        visit(ROOT_DOC)
    for rel in files:
        if rel not in order:
            reporter.warn(Location(rel), "page is in no toc", "toc")
            order.append(rel)
    return Book(config, tuple(parsed[p] for p in order))


def resolve_sources(config: BookConfig, names: list[str]) -> list[str]:
    """Page paths given on the command line, relative to the book root."""
    result: list[str] = []
    for name in names:
        path = Path(name)
        full = path if path.is_absolute() else Path.cwd() / path
        try:
            result.append(full.resolve().relative_to(config.root).as_posix())
        except ValueError as exc:
            raise PolybookError(Location(name), "not inside the book", "cli") from exc
    return result
