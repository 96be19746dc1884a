"""Formulas drawn once: each SVG kept in the build's cache by its TeX, its mode and the
MathJax version, drawn by as many Node processes as there are CPUs (``site.math_svg``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from polybook.site.math_draw import cache_folder, draw, last_run
from tests.books import ONE_TAB, build, index_page, pages_book, write_book


def test_a_second_draw_draws_nothing_and_a_new_formula_alone(tmp_path: Path) -> None:
    formulas = {("a^2 + b_i", False), ("\\mathbf{y} = \\mathbf{X}\\mathbf{w}", True)}
    first = draw(tmp_path, formulas)
    assert (first.drawn, first.node_runs) == (2, 1)
    assert all(svg.startswith("<svg") for svg in first.svgs.values())
    again = draw(tmp_path, formulas)
    assert (again.drawn, again.node_runs) == (0, 0)
    assert again.svgs == first.svgs
    edited = draw(tmp_path, {*formulas, ("c^3", False)})
    assert (edited.drawn, edited.node_runs) == (1, 1)  # only the new formula
    # inline and display of one TeX are two drawings
    both = draw(tmp_path, {("c^3", True)})
    assert both.drawn == 1 and both.svgs[("c^3", True)] != edited.svgs[("c^3", False)]


def test_many_formulas_are_shared_among_node_workers(tmp_path: Path) -> None:
    formulas = {(f"x_{{{i}}}^2", False) for i in range(120)}
    drawing = draw(tmp_path, formulas, workers=2)
    assert (drawing.drawn, drawing.node_runs) == (120, 2)
    assert set(drawing.svgs) == formulas


PAGE = "Inline $a^2 + b_i$.\n\n$$\\mathbf{y} = \\mathbf{X}\\mathbf{w} + b$$\n"


@pytest.mark.slow
def test_a_site_rebuilt_after_clean_draws_nothing_and_an_edit_its_new_formula(
    tmp_path: Path,
) -> None:
    root = pages_book(tmp_path / "book", {"math": PAGE, "other": "Words.\n"})
    cache = root / "_build" / "cache" / "math"
    assert build(root, "html") == 0  # cold: drawn from the pages while they were prepared
    assert last_run(cache) == {"formulas": 2, "drawn": 0, "node_runs": 0}
    assert len(list(cache_folder(cache).glob("*.svg"))) == 2
    for made in (root / "_build").iterdir():  # make clean: all but the cache
        if made.name != "cache":
            shutil.rmtree(made) if made.is_dir() else made.unlink()
    assert build(root, "html") == 0
    assert last_run(cache) == {"formulas": 2, "drawn": 0, "node_runs": 0}
    page = (root / "_build" / "html" / "math.html").read_text()
    assert page.count('class="pb-math ') == 2 and "<svg" in page
    (root / "math.md").write_text("# math\n\n" + PAGE + "\nAnd $c^3$.\n")
    assert build(root, "html") == 0
    assert last_run(cache) == {"formulas": 3, "drawn": 1, "node_runs": 1}
    assert len(list(cache_folder(cache).glob("*.svg"))) == 3
    assert json.loads((cache_folder(cache) / "last-run.json").read_text())["drawn"] == 1


@pytest.mark.slow
def test_a_formula_in_a_title_is_drawn_in_the_toctrees_of_other_pages(tmp_path: Path) -> None:
    # The index lists the page's title with its formula: the index is written before the
    # page, in another process, so its drawing comes from the cache.
    files = {
        "index.md": index_page("Book", ["layer", "other"]),
        "layer.md": "# The $k^3$ layer\n\nWords.\n",
        "other.md": "# Other\n\nMore.\n",
    }
    root = write_book(tmp_path / "book", files, ONE_TAB)
    assert build(root, "html") == 0
    index = (root / "_build" / "html" / "index.html").read_text()
    assert '<span class="pb-math pb-math-inline" role="img"' in index  # the toc and the sidebar
    assert "pb-tex" not in index
