"""The outputs that render share what the render core keeps in one process
(:mod:`polybook.render.kept`): an epub built after the site cleans and renders no page
again; the PDF's pages, made again, take their cleaned notebooks, their copies without HTML
and their pages from the last time, and the epub's take the notebooks the PDF cleaned."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.nb import copy_notebook, node
from polybook.pdf.pages import pdf_pages
from polybook.render.kept import CLEANED, CLEANED_HELD, PREPARED, RENDERED
from polybook.render.one_framework import framework_pages
from polybook.source.book import load_book
from polybook.source.split import split_book

from ..books import ONE_TAB, build, code, pages_book

HTML = {"text/html": "<b>3 rows</b>", "text/plain": "3 rows"}


def _misses() -> tuple[int, int, int]:
    return CLEANED.misses, PREPARED.misses, RENDERED.misses


def _cleaned_hits() -> int:
    """Cleaned notebooks taken from the last time: by the very notebook, or by its content."""
    return CLEANED_HELD.hits + CLEANED.hits


def test_the_pdfs_pages_made_again_clean_and_render_nothing_again_and_the_epub_takes_its_notebooks(
    tmp_path: Path,
) -> None:
    root = pages_book(tmp_path / "book", {"a": code("x = 1"), "b": "Words.\n"})
    config = load_config(root)
    reporter = Reporter(quiet=True)
    book = load_book(config.book, config.build, reporter)
    executed = {  # copies: this test gives one outputs (the split notebooks are kept)
        (path, fw): copy_notebook(nb)
        for fw, nbs in split_book(book, config.build.tabs, reporter).items()
        for path, nb in nbs
    }
    cell = next(c for c in executed[("a.md", "pytorch")].cells if c.cell_type == "code")
    cell.outputs = [node({"output_type": "display_data", "data": dict(HTML), "metadata": {}})]
    first = pdf_pages(book, executed, "pytorch", 10**6, reporter, [], 0, True)
    misses, hits = _misses(), (_cleaned_hits(), RENDERED.hits)
    again = pdf_pages(book, executed, "pytorch", 10**6, reporter, [], 0, True)
    assert _misses() == misses  # nothing cleaned, stripped of its HTML or rendered again
    assert _cleaned_hits() > hits[0] and RENDERED.hits > hits[1]
    assert [p.text for p in again] == [p.text for p in first]
    assert again[0].text.rstrip().endswith("```{bibliography}\n```")  # once, not twice
    assert again[0].text.count("{bibliography}") == 1
    epub = framework_pages(book, executed, "pytorch", 10**6, reporter, [], 0)
    assert CLEANED.misses == misses[0]  # the notebooks the PDF cleaned
    page = next(p for p in epub if p.docname == "a")
    shown = [o for c in page.cells.values() for cell in c["cells"] for o in cell["outputs"]]
    assert [o["type"] for o in shown] == ["html"]  # the PDF's copy lost its HTML, not this


@pytest.mark.slow
def test_an_epub_built_after_the_site_in_one_process_cleans_and_renders_no_page_again(
    tmp_path: Path,
) -> None:
    pages = {"a": code("print(6 * 7)"), "b": "Words.\n", "c": code("y = 2")}
    root = pages_book(tmp_path / "book", pages, ONE_TAB + "eval_notebook = false\n")
    assert build(root, "html") == 0
    (cleaned, _, rendered), hits = _misses(), (_cleaned_hits(), RENDERED.hits)
    assert build(root, "epub") == 0
    assert (CLEANED.misses, RENDERED.misses) == (cleaned, rendered)
    assert _cleaned_hits() > hits[0] and RENDERED.hits > hits[1]
    assert list((root / "_build" / "epub").glob("*.epub"))
