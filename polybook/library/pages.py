"""The library read page by page, without notebooks (``build lib``, ``dist``, ``check``).

For each page and framework: the code cells the notebook would hold (branches decided, marks
read), the blocks their ``#@save`` marks cut out, and whether each block compiles. That
depends on the page alone, so it is done where the page is parsed (a worker process, for a
large book: see :func:`polybook.source.book.read_book`). The checks across pages, in book
order, are :func:`libraries_from_pages`'s; it reports what :func:`split_book` and
:func:`extract_libraries` would report of the same book.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial

from polybook.config import Book
from polybook.config.schema import BuildSection
from polybook.diagnostics import Diagnostic, PolybookError, Reporter
from polybook.library.extract import (
    CompileError,
    Extracted,
    Merge,
    checked_libraries,
    compile_error,
)
from polybook.library.model import SavedBlock, SourceCell
from polybook.library.saves import source_blocks
from polybook.source.book import ParsedBook, read_book
from polybook.source.marks import Line
from polybook.source.model import CodeCell, Document
from polybook.source.selected import SELECTED
from polybook.source.split import cell_lines

PageSaves = dict[str, "FrameworkSaves"]  # one page's, by framework


@dataclass(frozen=True)
class FrameworkSaves:
    """One page's saved blocks for one framework, or why there are none."""

    blocks: tuple[SavedBlock, ...] = ()
    compiled: tuple[CompileError | None, ...] = ()  # each block's compile_error
    split_error: Diagnostic | None = None  # a cell does not split: the build stops
    save_error: Diagnostic | None = None  # a #@save mark is wrong: this library fails


def page_saves(info: Book, tabs: Sequence[str], doc: Document) -> PageSaves:
    """What ``doc`` gives each framework's library (its blocks' ``notebook`` is 0)."""
    found: PageSaves = {}
    # Only a cell with a mark or a branch can fail to split, or save: most cells need no look.
    marked = [
        b
        for b in doc.blocks
        if isinstance(b, CodeCell)
        and ("@save" in b.source or "#@" in b.source or SELECTED in b.source)
    ]
    # A cell whose lines are the same in several frameworks gives them the same blocks.
    shared: dict[tuple[Line, ...], tuple[SavedBlock, ...]] = {}
    for name in tabs:
        cells = [cell for cell in marked if name in cell.frameworks]
        try:
            fw = info.framework(name)
            split = [tuple(cell_lines(cell, fw, doc.path, info.tabs)[0]) for cell in cells]
        except PolybookError as err:
            found[name] = FrameworkSaves(split_error=err.diagnostic)
            continue
        blocks: list[SavedBlock] = []
        try:
            for lines in split:
                if lines not in shared:
                    shared[lines] = _cell_blocks(lines, doc.path, name)
                blocks += shared[lines]
        except PolybookError as err:  # its location names the framework: not shared
            found[name] = FrameworkSaves(save_error=err.diagnostic)
            continue
        compiled = tuple(compile_error(block.code) for block in blocks)
        found[name] = FrameworkSaves(tuple(blocks), compiled)
    return found


def _cell_blocks(lines: tuple[Line, ...], path: str, framework: str) -> tuple[SavedBlock, ...]:
    source = "\n".join(text for _, text in lines)
    if "@save" not in source:
        return ()
    cell = SourceCell(path, 0, lines)
    blocks = source_blocks(source, cell.source_line, path, 0, framework)
    for block in blocks:  # read here, where the tree is parsed already
        with suppress(SyntaxError):  # check_blocks reports it
            block.statements  # noqa: B018  # cached: it goes with the block
    return tuple(blocks)


def read_saves(
    info: Book, build: BuildSection, tabs: Sequence[str], reporter: Reporter
) -> tuple[ParsedBook, list[PageSaves]]:
    """The book, and each page's saves in book order; cells that do not split are reported
    (as :func:`~polybook.source.split.split_book` reports them). Raises
    :class:`~polybook.source.book.BookInvalid` as :func:`~polybook.source.book.load_book`
    does."""
    book, pages = read_book(info, build, reporter, lambda doc: page_saves(info, tabs, doc))
    in_order = [pages[doc.path] for doc in book.documents]
    for page in in_order:
        for name in tabs:
            if (error := page[name].split_error) is not None:
                reporter.error(error)
    return book, in_order


def libraries_from_pages(
    pages: Sequence[PageSaves], tabs: Sequence[str], reporter: Reporter, merge: Merge | None = None
) -> dict[str, list[SavedBlock]]:
    """Each framework's checked library from its pages' saves, given in book order (and
    completed by ``merge``); a framework whose code fails is left out (its error reported)."""
    extract = {name: partial(_framework_blocks, pages, name) for name in tabs}
    return checked_libraries(extract, reporter, merge)


def _framework_blocks(pages: Sequence[PageSaves], name: str) -> Extracted:
    """One framework's blocks from the pages that split for it, numbered by notebook."""
    blocks: list[SavedBlock] = []
    compiled: list[CompileError | None] = []
    notebook = 0  # the position the page's notebook would have
    for page in pages:
        saves = page[name]
        if saves.split_error is not None:  # reported by read_saves; no notebook
            continue
        if (error := saves.save_error) is not None:
            raise PolybookError(error.location, error.message, error.subtype)
        blocks += (block.at(notebook) for block in saves.blocks)
        compiled += saves.compiled
        notebook += 1
    return blocks, compiled
