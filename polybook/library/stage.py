"""The library stage's entry points: each framework's ``#@save`` code, checked, with the
config's aliases placed in it, written to ``d2l/<lib>.py``; and the notebooks as readers
see and run them (the aliases replaced by each framework's own code).

A library whose code fails keeps its last good file; an error stops the build before
anything is executed or rendered.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from polybook.config import Book, key_location
from polybook.config.schema import BuildSection, LibrarySection
from polybook.diagnostics import PolybookError, Reporter
from polybook.fsutil import remove_stale_temps, write_atomic
from polybook.library.aliases import with_aliases
from polybook.library.committed import borrowing
from polybook.library.extract import check_parity, extract_libraries
from polybook.library.head import check_library_file, library_module
from polybook.library.model import SavedBlock
from polybook.library.pages import PageSaves, libraries_from_pages, read_saves
from polybook.library.rewrite import rewrite_notebooks
from polybook.library.version import write_release
from polybook.nb import Notebooks
from polybook.source.book import BookInvalid, ParsedBook
from polybook.source.files import check_config_files
from polybook.source.model import SourceRequest
from polybook.source.stage import Sources

logger = logging.getLogger("polybook")
Blocks = dict[str, list[SavedBlock]]  # each framework's library, in book order


@dataclass(frozen=True)
class Library:
    """Each framework's saved code (aliases placed), and its notebooks as readers see and
    run them; the parsed pages and the request come along for the later stages."""

    sources: Sources
    blocks: Blocks
    notebooks: Notebooks

    @property
    def parsed(self) -> ParsedBook:
        return self.sources.parsed

    @property
    def tabs(self) -> tuple[str, ...]:
        return self.sources.tabs


def write_libraries(
    info: Book, library: LibrarySection, libraries: Blocks, reporter: Reporter
) -> Blocks:
    """Write the libraries extracted without errors (the others keep their last good file),
    with the aliases the config adds, and the release into ``version_file``; returns what
    was written. A name some libraries
    define and others lack is warned of, unless ``library.framework_specific`` names it."""
    libraries = with_aliases(info, libraries, reporter)
    if write_release(info, info.project.release, library.version_file, reporter):
        logger.info("wrote release %s into %s", info.project.release, library.version_file)
    for fw, blocks in libraries.items():
        target = info.root / info.library_for(fw).lib_file
        if not info.confinement.holds(target):  # behind check_config_files
            where = key_location(info.root, f"library-{fw}", "lib_file")
            message = f"[library-{fw}] lib_file: {target} is outside the book: not written"
            reporter.error(PolybookError(where, message, "source.outside"))
            continue
        if not blocks and not target.exists():
            continue  # nothing saved: no empty module is made (as d2lbook)
        try:
            check_library_file(target, info.library_for(fw).lib_file, blocks)
        except PolybookError as err:
            reporter.error(err)
            continue
        remove_stale_temps(target.parent)
        text = library_module(target, blocks, info.framework(fw).display_name)
        if write_atomic(target, text):
            logger.info("wrote %s (%d blocks)", target.relative_to(info.root), len(blocks))
    check_parity(libraries, library.framework_specific, reporter)
    return libraries


def build_library(
    sources: Sources,
    info: Book,
    library: LibrarySection,
    reporter: Reporter,
    write: bool = True,
) -> Library | None:
    """The library of ``sources``' notebooks, written unless ``write`` is False; None where
    its code fails (the errors are in ``reporter``)."""
    found = extract_libraries(sources.notebooks, reporter, borrowing(info, sources.parsed))
    if write:
        blocks = write_libraries(info, library, found, reporter)
    else:
        blocks = with_aliases(info, found, reporter)
    if reporter.errors:
        return None
    # What readers see and run: the library keeps the code as saved (it defines the aliases).
    return Library(sources, blocks, rewrite_notebooks(info, sources.notebooks, reporter))


@dataclass(frozen=True)
class PageSavesRead:
    """The book, and each page's saves in book order, read without notebooks."""

    request: SourceRequest
    book: ParsedBook
    saves: list[PageSaves]


def read_pages(
    request: SourceRequest, info: Book, build: BuildSection, reporter: Reporter
) -> PageSavesRead | None:
    """The pages parsed and their saved code cut out, in the processes that parse them
    (``build lib``, ``build dist``: no notebooks are made); None where a page does not parse
    or a cell does not split (the errors are in ``reporter``)."""
    # A library file outside the book, before any:
    check_config_files(info, build.sphinx_extensions, reporter)
    if reporter.errors:
        return None
    try:
        book, saves = read_saves(info, build, request.tabs, reporter)
    except BookInvalid:
        return None
    return None if reporter.errors else PageSavesRead(request, book, saves)


def library_of_pages(
    pages: PageSavesRead, info: Book, library: LibrarySection, reporter: Reporter
) -> Library | None:
    """The library of :func:`read_pages`' saves, written; None where its code fails."""
    merge = borrowing(info, pages.book)
    found = libraries_from_pages(pages.saves, pages.request.tabs, reporter, merge)
    blocks = write_libraries(info, library, found, reporter)
    if reporter.errors:
        return None
    return Library(Sources(pages.book, {}, pages.request), blocks, {})
