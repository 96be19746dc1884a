"""A book's ``_quarto.yml`` chapter list, where it has one: the order of its pages.

Books that are also built with Quarto list their pages in ``book.chapters`` (a ``part:``
holding ``chapters:`` of its own; ``appendices`` after them); a ``.qmd`` name there means
the ``.md`` page beside it. A part's own page is a divider, as in Quarto: it takes no
number, and the chapters count on across parts (:func:`unnumber_parts`).

Where that list and the ``toc`` blocks disagree, the list wins: the pages it names take its
order, in the book and in each toc block; a page it names that
no toc block holds is added to one (:func:`add_listed_pages`), so that the site lists it and
numbers it, as Quarto does.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

import yaml  # type: ignore[import-untyped]

from polybook.diagnostics import Location, Reporter
from polybook.source.model import Document, Toc

logger = logging.getLogger("polybook")

QUARTO_FILE = "_quarto.yml"
INDEX = "index.md"


def toc_page(base: PurePosixPath, entry: str) -> str:
    """The page (relative to the root) a toc entry of a page in folder ``base`` names."""
    name = entry if entry.endswith(".md") else f"{entry}.md"
    return posixpath.normpath((base / name).as_posix())


@dataclass(frozen=True)
class QuartoList:
    """The pages ``_quarto.yml`` lists, in order, and those of them that are parts' pages."""

    pages: tuple[str, ...] = ()
    parts: frozenset[str] = frozenset()


def quarto_pages(root: Path, reporter: Reporter) -> QuartoList:
    """The pages ``_quarto.yml`` lists in ``book.chapters`` and ``book.appendices``, in
    order, as ``.md`` paths; none where the book has no such file (or it does not read)."""
    path = root / QUARTO_FILE
    if not path.is_file():
        return QuartoList()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        where = Location(QUARTO_FILE, int(line))
        reporter.warn(where, f"cannot read its chapter list: {exc}", "toc")
        return QuartoList()
    book = data.get("book") if isinstance(data, dict) else None
    if not isinstance(book, dict):
        return QuartoList()
    pages: list[str] = []
    parts: set[str] = set()
    for key in ("chapters", "appendices"):
        _walk(book.get(key), pages, parts)
    return QuartoList(tuple(pages), frozenset(parts))


def _walk(items: object, pages: list[str], parts: set[str]) -> None:
    if not isinstance(items, list):
        return
    for item in items:
        if isinstance(item, str):
            pages.append(_page(item))
        elif isinstance(item, dict):
            part = item.get("part")
            if isinstance(part, str) and part.endswith((".qmd", ".md")):
                pages.append(_page(part))
                parts.add(_page(part))
            _walk(item.get("chapters"), pages, parts)


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


def unnumber_parts(parts: Iterable[str], parsed: dict[str, Document]) -> None:
    """Each part's page in ``parsed`` with its title marked unnumbered, as Quarto shows a
    part: a page that takes no number and counts none (the chapters after it go on from
    the one before it); ``parsed`` is changed."""
    for path in parts:
        doc = parsed.get(path)
        if doc is not None and doc.title_line and doc.title_line not in doc.unnumbered:
            parsed[path] = replace(doc, unnumbered=tuple(sorted((doc.title_line, *doc.unnumbered))))


def note_order(page: str) -> None:
    """The one line saying which order won."""
    logger.info(
        "%s's book.chapters orders the book where the toc blocks disagree (first at %s)",
        QUARTO_FILE,
        page,
    )


def _entries(doc: Document) -> list[tuple[int, str]]:
    """The pages ``doc``'s toc blocks name, each with its block's index in ``doc.blocks``."""
    base = PurePosixPath(doc.path).parent
    return [
        (at, toc_page(base, entry))
        for at, block in enumerate(doc.blocks)
        if isinstance(block, Toc)
        for entry in block.entries
    ]


def _reach(parsed: Mapping[str, Document], start: str, reached: set[str]) -> None:
    """Add to ``reached`` ``start`` and the pages its toc blocks lead to."""
    pending = [start]
    while pending:
        path = pending.pop()
        if path in reached or path not in parsed:
            continue
        reached.add(path)
        pending.extend(page for _, page in _entries(parsed[path]))


def _host(
    page: str, before: Sequence[str], parsed: Mapping[str, Document], reached: set[str]
) -> tuple[str, int] | None:
    """Where ``page`` goes: its chapter's toc block (the last of its folder's ``index.md``);
    else the toc block holding the nearest page before it in the list (for a chapter's
    ``index.md``, the nearest chapter's), as (page holding it, block's index)."""
    folder = PurePosixPath(page).parent
    chapter = (folder / INDEX).as_posix()
    if PurePosixPath(page).name != INDEX and chapter in reached:
        tocs = [at for at, block in enumerate(parsed[chapter].blocks) if isinstance(block, Toc)]
        if tocs:
            return chapter, tocs[-1]
    holders = {listed: (path, at) for path in reached for at, listed in _entries(parsed[path])}
    for earlier in reversed(before):
        if earlier in holders and (PurePosixPath(page).name != INDEX or earlier.endswith(INDEX)):
            return holders[earlier]
    return None


def add_listed_pages(pages: Sequence[str], parsed: dict[str, Document], root: str) -> list[str]:
    """The pages of ``pages`` (the list's order) that no toc block from ``root`` leads to,
    each added at the end of a toc block (see :func:`_host`; :func:`follow_tocs` then puts it
    in the list's place); ``parsed`` is changed. Returns the pages added."""
    reached: set[str] = set()
    _reach(parsed, root, reached)
    added: list[str] = []
    for at, page in enumerate(pages):
        if page not in parsed or page in reached:
            continue
        host = _host(page, pages[:at], parsed, reached)
        if host is None:
            continue
        path, index = host
        doc = parsed[path]
        block = doc.blocks[index]
        assert isinstance(block, Toc)
        entry = posixpath.relpath(page, PurePosixPath(path).parent.as_posix()).removesuffix(".md")
        grown = replace(
            block, entries=(*block.entries, entry), entry_lines=(*block.entry_lines, block.line)
        )
        parsed[path] = replace(doc, blocks=(*doc.blocks[:index], grown, *doc.blocks[index + 1 :]))
        added.append(page)
        _reach(parsed, page, reached)
    if added:
        logger.info(
            "%s lists %d pages that no toc block holds: each added to its chapter's toc, else"
            " beside the page before it in the list (first: %s)",
            QUARTO_FILE,
            len(added),
            added[0],
        )
    return added
