"""A cold site's formulas are drawn from its Markdown while its pages are prepared, as
Sphinx will read them (``site.math_prefetch``): the build's own drawing finds them drawn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.site import math_prefetch
from polybook.site.math_draw import aligned_tex, cache_folder, draw, last_run
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


# ---- the runs read for formulas: as many as a whole read finds ----------------------------

FENCES = ("```", "~~~", "````")
INLINE = ("x", "a^2 + b_i", "\\frac{1}{2}", "\\sum_{i=1}^n x_i", "\\$5")
WORDS = ("Words", "a cost of 5", "`code $x$`", "*stress*", "{numref}`fig`", "[a](b.md)")


def _line(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), f"${draw(st.sampled_from(INLINE))}$")
    return " ".join(parts)


@st.composite
def _block(draw: st.DrawFn) -> str:
    """One block of a page: prose, a display (blank lines inside), an environment, a fence
    (a dollar in its code), a list whose items go on indented, a quote or a table."""
    kind = draw(st.sampled_from(("prose", "display", "align", "fence", "list", "quote", "table")))
    tex = draw(st.sampled_from(INLINE))
    if kind == "prose":
        return "\n".join(_line(draw) for _ in range(draw(st.integers(1, 3))))
    if kind == "display":
        blanks = "\n" * draw(st.integers(1, 3))
        body = draw(st.sampled_from((tex, f"{tex}{blanks}y = {tex}", f"\n{tex}\n~~~\n")))
        label = draw(st.sampled_from(("", " (eq-one)")))
        return f"$${body}$${label}"
    if kind == "align":
        return f"\\begin{{align}}\np &= {tex} \\\\\nr &= s\n\\end{{align}}"
    if kind == "fence":
        fence = draw(st.sampled_from(FENCES))
        body = draw(st.sampled_from(("cost = '$9'", "$$\n\nprint('$x$')", "")))
        info = draw(st.sampled_from(("", "python", "{.python .input}")))
        return f"{fence}{info}\n{body}\n{fence}"
    if kind == "list":
        marker = draw(st.sampled_from(("1.", "10.", "-", "*")))
        indent = " " * (len(marker) + 1)  # the item's paragraphs go on under its text
        items = [f"{marker} {_line(draw)}\n\n{indent}{_line(draw)}" for _ in range(2)]
        return "\n".join(items)
    if kind == "quote":
        return "> " + _line(draw)
    return f"| a | b |\n|---|---|\n| {_line(draw)} | ${tex}$ |"


def _read_whole(text: str) -> set[tuple[str, bool]]:
    """A page's formulas, its every block read by MyST's parser (no run passed over)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.base import strip_blank_lines
    from myst_parser.parsers.mdit import create_md_parser

    from polybook.render.sphinx.config import MYST_DOUBLE_INLINE, MYST_EXTENSIONS

    syntax = MdParserConfig(
        enable_extensions=set(MYST_EXTENSIONS), dmath_double_inline=MYST_DOUBLE_INLINE
    )
    found: set[tuple[str, bool]] = set()
    waiting = list(create_md_parser(syntax, RendererHTML).parse(text))
    while waiting:
        token = waiting.pop()
        waiting += token.children or ()
        if token.type in ("math_inline", "math_single"):
            found.add((token.content, False))
        elif token.type in math_prefetch.DISPLAY:
            tex = token.content if token.type == "amsmath" else strip_blank_lines(token.content)
            found.add((aligned_tex(tex), True))
    return found


@settings(max_examples=400, deadline=None)
@given(st.lists(_block(), min_size=1, max_size=8).map("\n\n".join))
def test_the_runs_read_for_formulas_find_what_a_whole_read_finds(page: str) -> None:
    assert math_prefetch.page_formulas(page) == _read_whole(page)


def test_a_books_pages_give_what_a_whole_read_gives() -> None:
    pages = sorted(Path(__file__).resolve().parents[2].glob("chapter_*/*.md"))
    assert len(pages) > 5
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert math_prefetch.page_formulas(text) == _read_whole(text), page


def test_the_early_drawing_starts_without_sphinx() -> None:
    """The early drawing shares two CPUs with the build: it imports no Sphinx (a second
    and more of a cold build's CPU, before it drew a formula)."""
    probe = "import json, sys, polybook.site.math_prefetch as m; m._parser(); "
    probe += "print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    imported = json.loads(run.stdout)
    assert "polybook.site.math_draw" in imported
    assert not [name for name in imported if name.split(".")[0] == "sphinx"]
