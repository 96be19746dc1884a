"""``polybook check``: every source check of a build, without executing or writing anything.

Parse, split and library extraction run as in a build; the library is compiled but not
written; labels, references, figures and the toc are checked across the book, and every file it
names lies inside it
(``_freeze/`` entries too). Fast enough
for a pre-commit hook.
"""

from __future__ import annotations

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.library.aliases import with_aliases
from polybook.library.committed import borrowing
from polybook.library.extract import check_parity
from polybook.library.pages import libraries_from_pages, read_saves
from polybook.library.rewrite import rewriters
from polybook.source.book import BookInvalid
from polybook.source.files import check_config_files, check_pages
from polybook.source.frozen import check_frozen
from polybook.source.references import check_references
from polybook.source.required_libs import check_set_up_cells


def check_book(config: BookConfig, tabs: tuple[str, ...], reporter: Reporter) -> None:
    """Report every problem the sources have; errors and warnings go to ``reporter``."""
    check_config_files(config.book, config.build.sphinx_extensions, reporter)
    check_frozen(config.root, reporter)
    try:
        book, saves = read_saves(config.book, config.build, tabs, reporter)
    except BookInvalid:
        return
    found = libraries_from_pages(saves, tabs, reporter, borrowing(config.book, book))
    libraries = with_aliases(config.book, found, reporter)
    check_parity(libraries, config.library.framework_specific, reporter)
    rewriters(config.book, tabs, reporter)  # each reverse_alias line replaces some text
    check_references(config.root, book.documents, reporter)
    check_pages(book, config.confinement, reporter)
    check_set_up_cells(book.documents, reporter)
