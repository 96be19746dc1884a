"""A book's pages as one framework shows them, for the outputs made per framework (the PDF,
the epub): the site's renderer given that framework alone gives its code and outputs, its
``:begin_tab:`` prose, untabbed cells once, and the same line maps."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from nbformat import NotebookNode

from polybook.diagnostics import Reporter
from polybook.render.outputs import clean_for_book
from polybook.render.page import Page, render_page
from polybook.source.book import ParsedBook

ROOT_DOC = "index"


def framework_pages(
    book: ParsedBook,
    executed: Mapping[tuple[str, str], NotebookNode],
    framework: str,
    limit: int,
    reporter: Reporter,
    roots: Sequence[tuple[str, str]],
    host_gpus: int = 0,
    bibliography: bool = False,
    prepare: Callable[[NotebookNode], NotebookNode] | None = None,
) -> list[Page]:
    """Every page of ``book`` as ``framework`` shows it; ``executed`` holds the notebooks
    ((page path, framework) -> notebook), ``limit`` the characters of text a cell's outputs
    show (``[build] output_limit``), ``roots`` the paths outputs must not show, and
    ``prepare`` changes each cleaned notebook (a copy) for the output. The root page ends
    with the bibliography when there is one."""
    pages = []
    known = book.info
    for doc in book.documents:
        nb = executed.get((doc.path, framework))
        notebooks = {}
        if nb is not None:
            cleaned = clean_for_book(known, limit, nb, roots, doc.path, framework, reporter)
            notebooks[framework] = prepare(cleaned) if prepare else cleaned
        page = render_page(doc, notebooks, (framework,), reporter, host_gpus, known.root)
        if doc.docname == ROOT_DOC and bibliography:
            last = page.lines.origin[-1] if page.lines.origin else 1
            page.lines.add("\n```{bibliography}\n```", last)
        pages.append(page)
    return pages
