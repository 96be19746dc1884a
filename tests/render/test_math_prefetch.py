"""A cold site's formulas are drawn from its Markdown while its pages are prepared, as
Sphinx will read them (``site.math_prefetch``): the build's own drawing finds them drawn."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from polybook.site import math_prefetch
from polybook.site.math_svg import cache_folder, draw, last_run
from tests.books import build, pages_book

FENCE = "`" * 3
# Every way a page writes math, and a dollar that is none (in code).
PAGE = f"""Inline $a^2 + b_i$ and a price in code: `$5`.

$$\\mathbf{{y}} = \\mathbf{{X}}\\mathbf{{w}} + b$$

A sum continues the paragraph:
$$\\sum_{{i=1}}^n x_i$$

$$
u = v

w = z
$$ (two-equations)

\\begin{{align}}
p &= q \\\\
r &= s
\\end{{align}}

Inline display $$\\int_0^1 f(t)\\,dt$$ in a sentence.

{FENCE}python
cost = "$9"
{FENCE}
"""


@pytest.mark.slow
def test_a_cold_site_finds_every_formula_drawn_early(tmp_path: Path) -> None:
    root = pages_book(tmp_path / "book", {"math": PAGE, "other": "Words $c^3$.\n"})
    cache = root / "_build" / "cache" / "math"
    assert build(root, "html") == 0
    found = last_run(cache)
    assert found["formulas"] == 7 and found["drawn"] == 0  # Sphinx drew none of them
    page = (root / "_build" / "html" / "math.html").read_text(encoding="utf-8")
    assert page.count('class="pb-math ') == 6 and "pb-tex" not in page


def test_a_page_outside_the_book_is_not_read_for_its_formulas(tmp_path: Path) -> None:
    from polybook.config import load_config
    from polybook.site.output import _draw_early

    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nSecret $z_{9}^{9}$.\n", encoding="utf-8")
    root = pages_book(tmp_path / "book", {"inside": "Words $c^3$.\n"})
    os.symlink(outside, root / "linked.md")
    drawing = _draw_early(load_config(root))
    assert drawing is not None and drawing.wait(timeout=120) == 0
    folder = cache_folder(root / "_build" / "cache" / "math")
    inside, secret = (draw(tmp_path / "probe", {(tex, False)}).svgs for tex in ("c^3", "z_{9}^{9}"))
    drawn = {path.read_text(encoding="utf-8") for path in folder.glob("*.svg")}
    assert set(inside.values()) <= drawn
    assert not set(secret.values()) & drawn


def test_a_warm_cache_starts_no_early_drawing(tmp_path: Path) -> None:
    cache = tmp_path / "math"
    assert not math_prefetch.cached(cache)
    draw(cache_folder(cache), {("x", False)})
    assert math_prefetch.cached(cache)
    assert math_prefetch.start(cache, tmp_path, ["page.md"]) is None


def test_the_formulas_of_a_page_are_read_as_myst_reads_them() -> None:
    found = math_prefetch.page_formulas(PAGE)
    assert ("a^2 + b_i", False) in found
    assert ("\\begin{aligned}u = v\\\\w = z\\end{aligned}", True) in found
    assert not any("5" in tex or "9" in tex for tex, _ in found)
    assert len(found) == 6
