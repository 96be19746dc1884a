"""The PDF's pages: each page as one framework shows it, as MyST with its line map
(:func:`polybook.render.one_framework.framework_pages`); an HTML output gives way to its
plain text, which LaTeX can show. The root page ends with the bibliography.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nbformat import NotebookNode

from polybook.diagnostics import Reporter
from polybook.render.one_framework import framework_pages
from polybook.render.page import Page
from polybook.source.book import ParsedBook


def drop_html(nb: NotebookNode) -> NotebookNode:
    """``nb``, changed in place: outputs that have a plain text keep no HTML."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/html" in data and "text/plain" in data:
                del data["text/html"]
    return nb


def pdf_pages(
    book: ParsedBook,
    executed: Mapping[tuple[str, str], NotebookNode],
    framework: str,
    limit: int,
    reporter: Reporter,
    roots: Sequence[tuple[str, str]],
    host_gpus: int = 0,
    bibliography: bool = False,
) -> list[Page]:
    """Every page of ``book`` as ``framework`` shows it in the PDF; ``executed`` holds the
    notebooks ((page path, framework) -> notebook), ``limit`` the characters of text a
    cell's outputs show, and ``roots`` the paths outputs must not
    show."""
    return framework_pages(
        book, executed, framework, limit, reporter, roots, host_gpus, bibliography, drop_html
    )
