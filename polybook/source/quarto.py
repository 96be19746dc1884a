"""A book's ``_quarto.yml`` chapter list, where it has one: the order of its pages.

Books that are also built with Quarto list their pages in ``book.chapters`` (a ``part:``
holding ``chapters:`` of its own; ``appendices`` after them); a ``.qmd`` name there means
the ``.md`` page beside it. Where that list and the ``toc`` blocks disagree, the list wins:
the pages it names take its order, in the book and in each toc block.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import yaml  # type: ignore[import-untyped]

from polybook.diagnostics import Location, Reporter
from polybook.source.model import Document, Toc

logger = logging.getLogger("polybook")

QUARTO_FILE = "_quarto.yml"


def quarto_pages(root: Path, reporter: Reporter) -> list[str]:
    """The pages ``_quarto.yml`` lists in ``book.chapters`` and ``book.appendices``, in
    order, as ``.md`` paths; none where the book has no such file (or it does not read)."""
    path = root / QUARTO_FILE
    if not path.is_file():
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        where = Location(QUARTO_FILE, int(line))
        reporter.warn(where, f"cannot read its chapter list: {exc}", "toc")
        return []
    book = data.get("book") if isinstance(data, dict) else None
    if not isinstance(book, dict):
        return []
    pages: list[str] = []
    for key in ("chapters", "appendices"):
        _walk(book.get(key), pages)
    return pages


def _walk(items: object, pages: list[str]) -> None:
    if not isinstance(items, list):
        return
    for item in items:
        if isinstance(item, str):
            pages.append(_page(item))
        elif isinstance(item, dict):
            part = item.get("part")
            if isinstance(part, str) and part.endswith((".qmd", ".md")):
                pages.append(_page(part))
            _walk(item.get("chapters"), pages)


def _page(name: str) -> str:
    return name.removesuffix(".qmd") + ".md" if name.endswith(".qmd") else name


def follow(items: Sequence[str], rank: Mapping[str, int]) -> list[str]:
    """``items`` with those ``rank`` holds put in its order, in the places they held; the
    others stay where they are."""
    ranked = sorted((x for x in items if x in rank), key=rank.__getitem__)
    taken = iter(ranked)
    return [next(taken) if x in rank else x for x in items]


def follow_tocs(doc: Document, rank: Mapping[str, int], target: Callable[[str], str]) -> Document:
    """``doc`` with each toc block's entries (``target`` names their pages) in ``rank``'s
    order, as :func:`follow` puts them."""
    if not any(isinstance(b, Toc) for b in doc.blocks):
        return doc
    blocks = [_follow_toc(b, rank, target) if isinstance(b, Toc) else b for b in doc.blocks]
    return replace(doc, blocks=tuple(blocks))


def _follow_toc(block: Toc, rank: Mapping[str, int], target: Callable[[str], str]) -> Toc:
    pages = [target(entry) for entry in block.entries]
    slots = list(range(len(pages)))  # entry k, ranked as its page
    ranks = {k: rank[page] for k, page in enumerate(pages) if page in rank}
    moved = follow([str(k) for k in slots], {str(k): r for k, r in ranks.items()})
    order = [int(k) for k in moved]
    entries = tuple(block.entries[k] for k in order)
    return replace(block, entries=entries, entry_lines=tuple(block.entry_lines[k] for k in order))


def first_difference(toc_order: Sequence[str], rank: Mapping[str, int]) -> str | None:
    """The first page the toc order puts elsewhere than ``rank`` does, if any."""
    listed = [p for p in toc_order if p in rank]
    for mine, theirs in zip(listed, sorted(listed, key=rank.__getitem__), strict=True):
        if mine != theirs:
            return mine
    return None


def note_order(page: str) -> None:
    """The one line saying which order won."""
    logger.info(
        "%s's book.chapters orders the book where the toc blocks disagree (first at %s)",
        QUARTO_FILE,
        page,
    )
