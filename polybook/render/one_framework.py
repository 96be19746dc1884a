"""A book's pages as one framework shows them, for the outputs made per framework (the PDF,
the epub): the site's renderer given that framework alone gives its code and outputs, its
``:begin_tab:`` prose, untabbed cells once, and the same line maps. Each notebook is cleaned
and each page rendered once per content in a process (:mod:`polybook.render.kept`): what the
site cleaned, these outputs take."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from nbformat import NotebookNode

from polybook.diagnostics import Reporter
from polybook.render import kept
from polybook.render.myst import Lines
from polybook.render.page import Page
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
    ``prepare`` changes each cleaned notebook (a copy) for the output (a function of the
    notebook alone: it is kept by its name). The root page ends with the bibliography when
    there is one."""
    pages = []
    known = book.book
    for doc in book.documents:
        nb = executed.get((doc.path, framework))
        notebooks = {}
        if nb is not None:
            cleaned = kept.cleaned(known, limit, nb, roots, doc.path, framework, reporter)
            notebooks[framework] = kept.prepared(cleaned, prepare, reporter) if prepare else cleaned
        page = kept.rendered(doc, notebooks, (framework,), reporter, host_gpus, known.root)
        pages.append(_with_bibliography(page) if doc.docname == ROOT_DOC and bibliography else page)
    return pages


def _with_bibliography(page: Page) -> Page:
    """``page`` ending with the bibliography (a new page: the one given is kept)."""
    lines = Lines(list(page.lines.text), list(page.lines.origin))
    lines.add("\n```{bibliography}\n```", lines.origin[-1] if lines.origin else 1)
    return replace(page, lines=lines)
