"""What the render core keeps between the builds of one process, for every output that
renders (the site, the PDF, the epub, the slides): each executed notebook as a book shows
it (cleaned), each page as MyST, each notebook offered for download in plain Markdown. An
output that renders a page the site rendered (the same parse, notebook and frameworks) takes
the site's; one that cleans a notebook the site cleaned takes the site's copy. Kept by
content (:mod:`polybook.memo`): what is taken back is shared, and callers only read it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.config import Book
from polybook.diagnostics import Reporter
from polybook.memo import HeldMemo, Memo, digest
from polybook.nb import copy_notebook
from polybook.render.outputs import clean_for_book
from polybook.render.page import Page, render_page

if TYPE_CHECKING:
    from nbformat import NotebookNode

    from polybook.source.model import Document

CLEANED: Memo[NotebookNode] = Memo(4096)  # by the executed notebook and how it is cleaned
# The same, by the very notebook (an unchanged page's is the last build's): no digest of it.
CLEANED_HELD: HeldMemo[NotebookNode] = HeldMemo(4096)
# An output's own change of a cleaned notebook (the PDF's: no HTML where there is text), by
# the cleaned notebook (kept itself) and the change's name.
PREPARED: HeldMemo[NotebookNode] = HeldMemo(4096)
RENDERED: HeldMemo[Page] = HeldMemo(4096)  # by the page's parse and its notebooks
PLAIN: Memo[tuple[NotebookNode, list[str], tuple[Any, ...]]] = Memo(4096)  # downloads


def cleaned(
    book: Book,
    limit: int,
    nb: NotebookNode,
    roots: Sequence[tuple[str, str]],
    path: str,
    framework: str,
    reporter: Reporter,
) -> NotebookNode:
    """:func:`~polybook.render.outputs.clean_for_book`, once per content; known by the very
    notebook first, then by a digest of it."""

    def by_content(reporter: Reporter) -> NotebookNode:
        key = digest("cleaned", str(book.root), limit, roots, path, framework, nb)
        return CLEANED.get(
            key,
            lambda found: clean_for_book(book, limit, nb, roots, path, framework, found),
            reporter,
        )

    held = f"{book.root}\0{limit}\0{roots}\0{path}\0{framework}"
    return CLEANED_HELD.get((nb,), held, by_content, reporter)


def prepared(
    nb: NotebookNode, prepare: Callable[[NotebookNode], NotebookNode], reporter: Reporter
) -> NotebookNode:
    """``prepare`` applied to a copy of the cleaned ``nb``, once while ``nb`` is the one kept
    (the copy is kept in turn, so that the page rendered from it is kept too)."""
    name = f"{prepare.__module__}.{prepare.__qualname__}"
    return PREPARED.get((nb,), name, lambda _: prepare(copy_notebook(nb)), reporter)


def rendered(
    doc: Document,
    nbs: Mapping[str, NotebookNode],
    tabs: tuple[str, ...],
    reporter: Reporter,
    gpus: int,
    root: Path,
) -> Page:
    """:func:`~polybook.render.page.render_page`, kept while the page's parse and its
    notebooks are the ones it was made from (kept themselves: their identity is the key). A
    page that shows a file (``:file:``) is rendered each time: the file may have changed."""
    if any(":file:" in getattr(block, "text", "") for block in doc.blocks):
        return render_page(doc, nbs, tabs, reporter, gpus, root)
    key = f"{tuple(nbs)}\0{tabs}\0{gpus}\0{root}"
    return RENDERED.get(
        (doc, *nbs.values()),
        key,
        lambda found: render_page(doc, nbs, tabs, found, gpus, root),
        reporter,
    )
