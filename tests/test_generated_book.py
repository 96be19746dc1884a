"""The synthetic book of ``benchmarks/make_book.py`` (tabs, saves, labels, references across
pages, tables, equations, citations, a toc tree) checks clean and builds every page with
no warning; its library is the same whether made from notebooks or from the pages' cells,
and reading many pages at once gives what reading them one by one gives."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from benchmarks.make_book import write_book
from polybook import parallel
from polybook.cli import main
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.library import extract_libraries, libraries_from_cells, library_text
from polybook.paths import SOURCE_ROOT
from polybook.source.book import load_book
from polybook.source.split import library_cells, split_book

from .test_build_e2e import Collect

PAGES = 12


def test_the_generator_writes_the_same_book_each_time(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert write_book(first, PAGES) == write_book(second, PAGES) == PAGES + 1  # and the root
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    assert "eval_notebook = False" in (first / "config.ini").read_text()


@pytest.mark.slow
def test_the_generated_book_checks_clean_and_builds_every_page_without_warning(
    tmp_path: Path,
) -> None:
    root = tmp_path / "book"
    write_book(root, PAGES)
    said = Collect()
    logger = logging.getLogger("polybook")
    logger.addHandler(said)
    try:
        assert main(["--quiet", "--root", str(root), "check"]) == 0
        assert main(["--quiet", "--root", str(root), "build", "html", "--strict"]) == 0
    finally:
        logger.removeHandler(said)
    assert said.messages == []
    pages = sorted(p.relative_to(root) for p in root.rglob("*.md") if "_build" not in p.parts)
    site = root / "_build" / "html"
    assert all((site / page.with_suffix(".html")).is_file() for page in pages)
    text = (site / "chapter_preliminaries" / "section-02.html").read_text(encoding="utf-8")
    for shown in ("Table 1.1.1", "Table 1.2.1", "(1.1.1)", "(1.2.1)", "Section 1.1"):
        assert shown in text  # numbered, and referred to from this page and the one before
    assert "Author <em>et al.</em>, 2002" in text  # a citation, in the book's style
    for fw, module in (("pytorch", "torch"), ("jax", "jax")):
        library = (root / "d2l" / f"{module}.py").read_text(encoding="utf-8")
        assert "class LayerC01S02" in library, fw


def _libraries(root: Path) -> dict[str, str]:
    """Each framework's library text, made through notebooks and from cells: the same."""
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config, reporter)
    through = extract_libraries(split_book(book, config.tabs, reporter, check=False), reporter)
    direct = libraries_from_cells(library_cells(book, config.tabs, reporter), reporter)
    assert reporter.errors == []
    assert through.keys() == direct.keys()
    texts = {fw: library_text(blocks, fw) for fw, blocks in direct.items()}
    assert texts == {fw: library_text(blocks, fw) for fw, blocks in through.items()}
    return texts


def test_the_library_made_from_cells_is_the_one_made_from_notebooks(tmp_path: Path) -> None:
    root = tmp_path / "book"
    write_book(root, PAGES)
    assert "LayerC01S03" in _libraries(root)["tensorflow"]
    assert _libraries(SOURCE_ROOT)  # the shipped book
    assert _libraries(Path(__file__).parent / "fixtures" / "d2lbook_book")


def test_pages_read_at_once_are_the_pages_read_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "book"
    write_book(root, 2 * parallel.MIN_ITEMS)
    config = load_config(root)
    together = load_book(config, Reporter())
    monkeypatch.setattr(parallel, "MIN_ITEMS", 10**6)  # one by one, in this process
    assert load_book(config, Reporter()) == together
