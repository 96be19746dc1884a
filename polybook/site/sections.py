"""What the site reads of the book's config: :class:`SiteSections`, made by the site's output
(:func:`polybook.site.output.site_sections`)."""

from __future__ import annotations

from dataclasses import dataclass

from polybook.config import Book
from polybook.config.schema import (
    BuildSection,
    ColabSection,
    Edition,
    HtmlSection,
    LibrarySection,
    SagemakerSection,
)
from polybook.output import Output


@dataclass(frozen=True)
class SiteSections:
    """The book, and the sections its site is built from."""

    book: Book
    build: BuildSection  # Sphinx's extensions and suppressed warnings, resources, output_limit
    html: HtmlSection  # favicon, logo, where the site is published
    library: LibrarySection  # the library's wheel, published with the site
    colab: ColabSection  # the links that open a page's notebook on Colab
    sagemaker: SagemakerSection  # ... and on SageMaker Studio Lab
    editions: tuple[Edition, ...]  # the language switcher's other editions
    linked: tuple[Output, ...] = ()  # the outputs built before it that it holds and links
