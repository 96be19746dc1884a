"""The source stage's entry point: the book's pages parsed, ordered by the toc, and split
into one notebook per framework (cells picked by ``%%tab``, branches by ``tab.selected``)."""

from __future__ import annotations

from dataclasses import dataclass

from polybook.config import Book
from polybook.config.schema import BuildSection
from polybook.diagnostics import Reporter
from polybook.nb import Notebooks
from polybook.source.book import BookInvalid, ParsedBook, load_book
from polybook.source.files import check_config_files, check_pages
from polybook.source.frozen import check_frozen
from polybook.source.model import SourceRequest
from polybook.source.split import split_book


@dataclass(frozen=True)
class Sources:
    """The book's parsed pages and each framework's notebooks, in book order, as the source
    stage made them."""

    parsed: ParsedBook
    notebooks: Notebooks
    request: SourceRequest

    @property
    def tabs(self) -> tuple[str, ...]:
        return self.request.tabs


def read_sources(
    request: SourceRequest, book: Book, build: BuildSection, reporter: Reporter
) -> Sources | None:
    """Parse and split the book; None where a page does not parse (the errors are in
    ``reporter``, which also holds any cell that does not split, and each file the book
    names outside it)."""
    check_config_files(book, build.sphinx_extensions, reporter)
    check_frozen(book.root, reporter)  # what _freeze/ names, before it is read
    try:
        parsed = load_book(book, build, reporter)
    except BookInvalid:
        return None
    check_pages(parsed, book.confinement, reporter)
    return Sources(parsed, split_book(parsed, request.tabs, reporter), request)
