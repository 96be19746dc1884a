"""The PDF's pages: each page as one framework shows it, as MyST with its line map.

The site's renderer (:func:`polybook.render.page.render_page`) given a single framework
gives just that: its code and outputs, its ``:begin_tab:`` prose, untabbed cells once, and
the same line maps. Outputs are cleaned as the site's are; an HTML output gives way to its
plain text, which LaTeX can show. The root page ends with the bibliography.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nbformat import NotebookNode

from polybook.diagnostics import Reporter
from polybook.render.outputs import clean_notebook
from polybook.render.page import Page, render_page
from polybook.source.book import Book

ROOT_DOC = "index"


def drop_html(nb: NotebookNode) -> NotebookNode:
    """``nb``, changed in place: outputs that have a plain text keep no HTML."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/html" in data and "text/plain" in data:
                del data["text/html"]
    return nb


def pdf_pages(
    book: Book,
    executed: Mapping[tuple[str, str], NotebookNode],
    framework: str,
    reporter: Reporter,
    roots: Sequence[tuple[str, str]],
    host_gpus: int = 0,
    bibliography: bool = False,
) -> list[Page]:
    """Every page of ``book`` as ``framework`` shows it; ``executed`` holds the notebooks
    ((page path, framework) -> notebook) and ``roots`` the paths outputs must not show."""
    pages = []
    for doc in book.documents:
        nb = executed.get((doc.path, framework))
        notebooks = {}
        if nb is not None:
            config = book.config
            whole = config.layout.executed(doc.path, framework).relative_to(config.root)
            limit = config.output_limit
            cleaned = clean_notebook(  # a copy
                nb, roots, doc.path, framework, reporter, limit, whole.as_posix()
            )
            notebooks[framework] = drop_html(cleaned)
        page = render_page(doc, notebooks, (framework,), reporter, host_gpus)
        if doc.docname == ROOT_DOC and bibliography:
            last = page.lines.origin[-1] if page.lines.origin else 1
            page.lines.add("\n```{bibliography}\n```", last)
        pages.append(page)
    return pages
