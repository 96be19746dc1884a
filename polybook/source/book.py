"""The book's pages in reading order: the ``toc`` blocks from ``index.md`` down."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TypeVar

from polybook.config import Book
from polybook.config.schema import BuildSection
from polybook.confine import Confinement
from polybook.diagnostics import Diagnostic, Location, PolybookError, Reporter
from polybook.memo import Memo
from polybook.parallel import map_pages
from polybook.source.model import Block, Document, Toc
from polybook.source.parse import parse, source_text
from polybook.source.quarto import (
    add_listed_pages,
    first_difference,
    follow,
    follow_tocs,
    note_order,
    quarto_pages,
    toc_page,
    unnumber_parts,
)

logger = logging.getLogger("polybook")

ROOT_DOC = "index.md"
PARSED: Memo[Document] = Memo(8192)  # each page parsed once per content (serve's rebuilds)
Derived = TypeVar("Derived")


class BookInvalid(Exception):
    """Some pages could not be parsed; their errors are in the reporter."""


@dataclass(frozen=True)
class ParsedBook:
    """The parsed pages of a book, in book order (toc order, then the rest by name).

    ``outside``: pages the toc names that this build leaves out (``[build] notebooks``).
    """

    book: Book  # the book they are pages of: its root, tabs and frameworks
    documents: tuple[Document, ...]
    outside: tuple[str, ...] = ()


def source_files(root: Path, build: BuildSection) -> list[str]:
    """Pages under ``root`` matched by ``[build] notebooks`` less ``exclusions``, relative
    POSIX paths."""
    found: set[str] = set()
    for pattern in build.notebooks:
        for path in root.glob(pattern):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(("_build/", ".")) or not path.is_file():
                continue
            if not any(fnmatch.fnmatch(rel, ex) for ex in build.exclusions):
                found.add(rel)
    return sorted(found)


def toc_targets(doc: Document) -> list[tuple[str, int]]:
    """Pages linked by the toc blocks of ``doc``: (path relative to the root, entry's line)."""
    base = PurePosixPath(doc.path).parent
    targets: list[tuple[str, int]] = []
    for block in doc.tocs:
        for entry, line in zip(block.entries, block.entry_lines, strict=True):
            targets.append((toc_page(base, entry), line))
    return targets


def _prune_toc(doc: Document, outside: set[str]) -> Document:
    """``doc`` without the toc entries that name pages in ``outside``."""
    base = PurePosixPath(doc.path).parent
    blocks: list[Block] = []
    for block in doc.blocks:
        if not isinstance(block, Toc):
            blocks.append(block)
            continue
        pairs = zip(block.entries, block.entry_lines, strict=True)
        kept = [(e, n) for e, n in pairs if toc_page(base, e) not in outside]
        entries, lines = tuple(e for e, _ in kept), tuple(n for _, n in kept)
        blocks.append(replace(block, entries=entries, entry_lines=lines))
    return replace(doc, blocks=tuple(blocks))


def _report_outside(outside: dict[str, Location], reporter: Reporter) -> None:
    """One warning for the toc entries naming pages this build does not take."""
    first, where = next(iter(outside.items()))
    count = len(outside)
    entries = "toc entry names a page" if count == 1 else "toc entries name pages"
    message = (
        f"{count} {entries} outside this build ([build] notebooks, exclusions), left out:"
        f" {'the first is ' if count > 1 else ''}{first!r}"
    )
    reporter.warn(where, message, "toc")


def decode_page(data: bytes, rel: str, reporter: Reporter) -> str:
    """A page's text: UTF-8 with an optional BOM (dropped). Warns when it is empty."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # The bytes before the first bad one decode; count lines as the parser does.
        before = source_text(data[: exc.start].decode("utf-8")).split("\n")
        line, column = len(before), len(before[-1]) + 1
        message = f"not UTF-8: byte 0x{data[exc.start]:02x} at column {column} ({exc.reason})"
        raise PolybookError(Location(rel, line), message, "source.encoding") from exc
    text = text.removeprefix("\ufeff")
    if not text.strip():
        reporter.warn(Location(rel), "page is empty", "source.empty")
    return text


def _read(
    info: Book, rel: str, reporter: Reporter, confinement: Confinement
) -> tuple[Document, str] | None:
    """One page parsed and its key in :data:`PARSED`, or None when it cannot be (the error
    is reported); ``confinement``: the book's, as a pass over its pages checks it."""
    path = os.path.join(info.root, rel)  # no path object: every page, at every build
    if not confinement.holds(path):
        message = f"the page is a link to {Path(path).resolve()}, outside the book"
        reporter.error(PolybookError(Location(rel), message, "source.outside"))
        return None
    try:
        with open(path, "rb") as page:
            data = page.read()
    except OSError as exc:
        reporter.error(PolybookError(Location(rel), f"cannot read: {exc.strerror}", "source.read"))
        return None
    key = _page_key(data, rel, info.tabs)
    try:
        doc = PARSED.get(
            key, lambda found: parse(decode_page(data, rel, found), rel, info.tabs), reporter
        )
    except PolybookError as err:
        reporter.error(err)
        return None
    for warning in doc.warnings:
        reporter.warn(warning.location, warning.message, warning.subtype)
    return doc, key


Kept = tuple[str, tuple[Document, tuple[Diagnostic, ...]]]  # a parse as PARSED keeps it


def _page_key(data: bytes, rel: str, tabs: Sequence[str]) -> str:
    return hashlib.sha256(data).hexdigest() + f"|{rel}|{','.join(tabs)}"


def _read_alone(
    info: Book, derive: Callable[[Document], Derived], confinement: Confinement, rel: str
) -> tuple[tuple[Document, Derived] | None, list[Diagnostic], Kept | None]:
    """One page parsed and what ``derive`` makes of it (None if it does not parse), with
    what parsing it reported (in a worker: the parent reports), and the parse as
    :data:`PARSED` keeps it (a worker's, kept by the parent too)."""
    found = Reporter(quiet=True)
    read = _read(info, rel, found, confinement)
    if read is None:
        return None, found.diagnostics, None
    doc, key = read
    return (doc, derive(doc)), found.diagnostics, PARSED.entry(key)


def _nothing(doc: Document) -> None:
    return None


def load_book(info: Book, build: BuildSection, reporter: Reporter) -> ParsedBook:
    """Parse every page; order them by the toc tree from ``index.md``.

    Every problem is reported; :class:`BookInvalid` is raised at the end if any was an error.
    """
    return read_book(info, build, reporter, _nothing)[0]


def read_book(
    info: Book, build: BuildSection, reporter: Reporter, derive: Callable[[Document], Derived]
) -> tuple[ParsedBook, dict[str, Derived]]:
    """As :func:`load_book`, and ``derive(page)`` of each page, by path: computed where the
    page is parsed (a worker process, for a large book), so that work is shared out too.
    ``derive`` must not report: it returns what it finds."""
    files = source_files(info.root, build)
    errors = len(reporter.errors)
    parsed: dict[str, Document] = {}
    derived: dict[str, Derived] = {}
    # the pages lie in a few folders: each one's real path found once
    read = map_pages(partial(_read_alone, info, derive, info.confinement.walking()), files)
    for rel, (page, found, entry) in zip(files, read, strict=True):
        reporter.forward(found)
        if page is not None and entry is not None:
            # Parsed in a worker: this process keeps it, and hands out the parse it keeps
            # (whose identity later steps' kept results are keyed by: serve's rebuilds).
            PARSED.put(*entry)
            parsed[rel], derived[rel] = PARSED.kept[entry[0]][0], page[1]
        elif page is not None:
            parsed[rel], derived[rel] = page
    order: list[str] = []
    seen: set[str] = set()
    outside: dict[str, Location] = {}  # pages on disk that the build does not take
    missing: set[str] = set()  # toc entries naming no file
    listed = quarto_pages(info.root, reporter)
    if listed.pages and ROOT_DOC in parsed:
        add_listed_pages(listed.pages, parsed, ROOT_DOC)
    unnumber_parts(listed.parts, parsed)
    pending = [ROOT_DOC] if ROOT_DOC in parsed else []
    while pending:  # depth first, in toc order
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        order.append(path)
        linked: list[str] = []
        for target, line in toc_targets(parsed[path]):
            if target in parsed:
                linked.append(target)
            elif target in files:  # a page that failed to parse is reported already
                continue
            elif (info.root / target).is_file():
                outside.setdefault(target, Location(path, line))
            else:  # left out with a warning, as Sphinx does
                message = f"toc entry {target!r} is not a page of the book: left out"
                reporter.warn(Location(path, line), message, "toc")
                missing.add(target)
        pending.extend(reversed(linked))
    if len(reporter.errors) > errors:
        raise BookInvalid()
    if outside:
        _report_outside(outside, reporter)
    if outside or missing:
        for path in order:
            parsed[path] = _prune_toc(parsed[path], {*outside, *missing})
    for rel in files:
        if rel not in seen:
            reporter.warn(Location(rel), "page is in no toc", "toc")
            order.append(rel)
    order = _follow_quarto(listed.pages, order, parsed)
    _note_dropped(info.tabs, parsed.values())
    return ParsedBook(info, tuple(parsed[p] for p in order), tuple(outside)), derived


def _follow_quarto(
    pages: Sequence[str], order: list[str], parsed: dict[str, Document]
) -> list[str]:
    """``order`` and the toc blocks in ``parsed`` put in the order of the book's
    ``_quarto.yml`` where it has one (noted once when that moves a page)."""
    rank = {page: k for k, page in enumerate(p for p in pages if p in parsed)}
    first = first_difference(order, rank)
    if first is None:
        return order
    note_order(first)
    for path, doc in parsed.items():
        base = PurePosixPath(path).parent
        parsed[path] = follow_tocs(doc, rank, partial(toc_page, base))
    return follow(order, rank)


def _note_dropped(tabs: tuple[str, ...], documents: Iterable[Document]) -> None:
    """One note for the book: the frameworks its cells and prose name that it does not
    build (``[build] tabs``), whose blocks are left out."""
    pages: dict[str, int] = {}
    for doc in documents:
        for name in doc.dropped:
            pages[name] = pages.get(name, 0) + 1
    if pages:
        named = ", ".join(f"{name} ({n} pages)" for name, n in sorted(pages.items()))
        logger.info(
            "left out the cells and prose of frameworks not in [build] tabs (%s): %s",
            ", ".join(tabs),
            named,
        )
