"""Decks from the fixture book in d2l format (``fixtures/slides_book``), made from its split
notebooks: which sections get one, their slides, and how marks and code become cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.render.plain import plain_book, site_address
from polybook.slides.deck import Deck, make_deck, polish
from polybook.slides.rise import rise_notebook
from polybook.source.book import load_book
from polybook.source.split import split_book

from ..books import FIXTURES, code, pages_book
from ..golden import check_golden

BOOK = FIXTURES / "slides_book"
GOLDEN = FIXTURES / "slides_decks.golden"


def decks() -> list[tuple[str, str, Deck | None]]:
    config = load_config(BOOK)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    notebooks = split_book(book, config.build.tabs, reporter)
    assert not reporter.diagnostics, reporter.diagnostics
    made = []
    for fw in config.build.tabs:
        site = site_address(config.html.base_url, config.project.site_url)
        refs = plain_book(book, site, config.book.bibliography, fw).refs
        for path, nb in notebooks[fw]:
            doc = next(d for d in book.documents if d.path == path)
            made.append((path, fw, make_deck(doc, nb, fw, refs)))
    return made


def show(deck: Deck) -> list[str]:
    lines = []
    for number, slide in enumerate(deck.slides, start=1):
        lines.append(f"--- slide {number}")
        for cell in slide:
            lines += [f"[{cell.kind}]", cell.source]
    return lines


def test_each_marked_section_has_a_deck_of_its_marks_and_code() -> None:
    lines = []
    for path, fw, deck in decks():
        lines.append(f"== {path} {fw}" + ("" if deck else ": no deck (no slide marks)"))
        lines += show(deck) if deck else []
    check_golden(GOLDEN, "\n".join(lines) + "\n")


def test_rise_notebooks_mark_slides_and_carry_the_corners() -> None:
    made = {(path, fw): deck for path, fw, deck in decks()}
    deck = made[("chapter/basics.md", "jax")]
    assert deck is not None
    kernelspec = {"name": "python3", "display_name": "Python 3 (JAX)", "language": "python"}
    nb = rise_notebook(deck, kernelspec, "<b>A course</b>", "Week 1")
    types = [cell.metadata["slideshow"]["slide_type"] for cell in nb.cells]
    assert types.count("slide") == len(deck.slides) and types[0] == "slide"
    assert set(types) == {"slide", "-"}
    assert nb.metadata["celltoolbar"] == "Slideshow"
    overlay = nb.metadata["rise"]["overlay"]
    assert "<b>A course</b>" in overlay and "Week 1" in overlay
    assert made[("chapter/plain.md", "jax")] is None  # no marks: no deck
    assert made[("index.md", "pytorch")] is None


def test_a_sentence_on_a_slide_starts_capitalized_and_ends_without_a_comma() -> None:
    assert polish("operations can be applied elementwise,") == (
        "Operations can be applied elementwise"
    )
    assert polish("$$y = 1.$$") == "$$y = 1$$"
    assert polish("why?") == "Why?"
    assert polish("`x` grows") == "`x` grows"


def test_build_slides_writes_decks_and_warns_of_a_corner_from_the_network(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = (
        "[build]\ntabs = pytorch\neval_notebook = false\n\n"
        "[slides]\ntop_right = <img src='https://example.org/logo.png'>\n"
    )
    root = pages_book(
        tmp_path / "book",
        {"Marked": "[**A slide.**]\n\n" + code("print(1)"), "Plain": "No marks.\n"},
        config,
    )
    assert main(["--quiet", "--root", str(root), "build", "slides"]) == 0
    warned = [m for m in caplog.messages if "[polybook.slides.remote]" in m]
    assert [m.split(":", 2)[:2] for m in warned] == [["config.ini", "6"]]
    decks = root / "_build/slides/pytorch"
    assert sorted(p.name for p in decks.iterdir()) == [
        "Marked.html",
        "Marked.ipynb",
        "README.md",
        "rise.css",
    ]
    assert (root / "_build/slides/_static/reveal/reveal.js").is_file()
    assert (root / "_build/slides/_static/mathjax/tex-chtml.js").is_file()
