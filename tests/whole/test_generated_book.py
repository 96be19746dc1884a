"""The synthetic book of ``benchmarks/make_book.py`` (tabs, saves, labels, references across
pages, tables, equations, citations, a toc tree) checks clean and builds every page with
no warning; its library is the same whether made from notebooks or from the pages' cells,
and reading many pages at once gives what reading them one by one gives."""

from __future__ import annotations

import logging
from pathlib import Path

import distributed  # noqa: F401  # its tblib changes how exceptions pickle, as in a Dask build
import pytest

from benchmarks.make_book import write_book
from polybook import parallel
from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.library.compose import library_text
from polybook.library.extract import extract_libraries
from polybook.library.pages import libraries_from_pages, read_saves
from polybook.source.book import load_book
from polybook.source.split import split_book

from ..books import REPO, Collect

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
    book = load_book(config.book, config.build, reporter)
    through = extract_libraries(
        split_book(book, config.build.tabs, reporter, check=False), reporter
    )
    said = reporter.diagnostics.copy()
    reporter.diagnostics.clear()
    book_too, saves = read_saves(config.book, config.build, config.build.tabs, reporter)
    direct = libraries_from_pages(saves, config.build.tabs, reporter)
    assert book_too == book
    assert reporter.diagnostics == said  # the same warnings, in the same order
    assert reporter.errors == []
    assert through.keys() == direct.keys()
    texts = {fw: library_text(blocks, fw) for fw, blocks in direct.items()}
    assert texts == {fw: library_text(blocks, fw) for fw, blocks in through.items()}
    return texts


def test_the_library_made_from_cells_is_the_one_made_from_notebooks(tmp_path: Path) -> None:
    root = tmp_path / "book"
    write_book(root, PAGES)
    assert "LayerC01S03" in _libraries(root)["tensorflow"]
    assert _libraries(REPO)  # the shipped book
    assert _libraries(Path(__file__).parents[1] / "fixtures" / "d2lbook_book")


def test_pages_read_at_once_are_the_pages_read_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "book"
    write_book(root, 2 * parallel.MIN_ITEMS)
    config = load_config(root)
    together = load_book(config.book, config.build, Reporter())
    monkeypatch.setattr(parallel, "MIN_ITEMS", 10**6)  # one by one, in this process
    assert load_book(config.book, config.build, Reporter()) == together


def _append(page: Path, *cells: str) -> None:
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "".join(f"\n```{{.python .input}}\n{c}\n```\n" for c in cells))


def test_a_book_read_page_by_page_reports_what_its_notebooks_report(tmp_path: Path) -> None:
    """Faults of every kind, on pages read in worker processes: located as the notebook path
    locates them, the failing frameworks left out and the others kept."""
    root = tmp_path / "book"
    write_book(root, 2 * parallel.MIN_ITEMS)
    chapter = root / "chapter_preliminaries"
    _append(
        chapter / "section-02.md",
        "%%tab pytorch\nx = 1\n#@save",  # saves nothing: torch's library fails
    )
    _append(
        chapter / "section-03.md",
        "%%tab jax\ndef f():  #@save\n    pass\nreturn 1  #@save",  # jax's does not compile
        "%%tab mxnet\n@d2l.add_to_class(Later)  #@save\ndef g(self):\n    pass",
    )
    _append(chapter / "section-04.md", "%%tab all\nif tab.selected('mxnet') and x:\n    y = 1")
    later = root / "chapter_linear-classification" / "section-01.md"
    _append(later, "%%tab tensorflow\ndef scale_c01s02(x):  #@save\n    return x")
    config = load_config(root)
    through = Reporter()
    book = load_book(config.book, config.build, through)
    notebooks = split_book(book, config.build.tabs, through, check=False)
    libraries = extract_libraries(notebooks, through)
    direct = Reporter()
    _, saves = read_saves(config.book, config.build, config.build.tabs, direct)
    assert libraries_from_pages(saves, config.build.tabs, direct).keys() == libraries.keys()
    assert direct.diagnostics == through.diagnostics
    errors = [str(d) for d in direct.errors]
    assert libraries.keys() == {"tensorflow"}, errors
    assert any("section-02.md" in e and "[pytorch]" in e and "library.save" in e for e in errors)
    assert any("section-03.md" in e and "[jax]" in e and "library.syntax" in e for e in errors)
    assert any("[mxnet]" in e and "add_to_class(Later)" in e for e in errors)
    assert sum("section-04.md" in e and "split.tab" in e for e in errors) == 4  # each tab
    redefined = [d for d in direct.warnings if d.subtype == "library.redefined"]
    assert [d.location.path for d in redefined] == [later.relative_to(root).as_posix()]
    assert "chapter_preliminaries/section-02.md:" in redefined[0].message
