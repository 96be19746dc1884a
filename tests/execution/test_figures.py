"""Executed notebooks' matplotlib figures ([html] figure_format): drawings (SVG) by default,
made inert before they reach the site and converted for the PDF; or PNGs at twice the
pixels, shown at the usual size. Set in the kernel at its start: the cells stay the
author's, and a cell that sets its own format keeps it."""

from __future__ import annotations

import base64
import struct
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from polybook.config import load_config
from polybook.execution.cache import CacheKey
from polybook.nb import new_code_cell, new_notebook, node, reads
from polybook.render.myst import Lines
from polybook.render.page import Page, _output

from ..books import build, code, pages_book

PLOT = code(
    "import matplotlib.pyplot as plt",
    "plt.figure(figsize=(3, 2))",
    "plt.plot([0, 1, 2], [0, 1, 4])",
    "plt.show()",
)
TRACKER = "tracker.example"
MALICIOUS = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
    '<circle cx="10" cy="10" r="8" onload="alert(1)"/><script>alert(2)</script>'
    f'<foreignObject><p xmlns="http://www.w3.org/1999/xhtml">x</p></foreignObject>'
    f'<image href="https://{TRACKER}/pixel.png" width="1" height="1"/></svg>'
)
SHOWN = code(
    "from IPython.display import display",
    f"display({{'image/svg+xml': {MALICIOUS!r}}}, raw=True)",
)
# The same figure drawn as a plain PNG: the author's own %config, kept.
OWN_PNG = code(
    "%config InlineBackend.figure_formats = ['png']",
    "plt.figure(figsize=(3, 2))",
    "plt.plot([0, 1, 2], [0, 1, 4])",
    "plt.show()",
)


def config(figure_format: str = "", build: str = "") -> str:
    chosen = f"[html]\nfigure_format = {figure_format}\n" if figure_format else ""
    head = "[project]\nname = figs\ntitle = Figures\n\n[build]\ntabs = pytorch\n"
    return f"{head}{build}\n{chosen}"


def executed(root: Path) -> list[list[Any]]:
    """The outputs of each code cell of the executed page."""
    text = (root / "_build" / "eval" / "pytorch" / "page.ipynb").read_text(encoding="utf-8")
    return [c.outputs for c in reads(text).cells if c.cell_type == "code"]


def png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_figure_format_is_part_of_the_cache_key() -> None:
    nb = new_notebook()
    nb.cells.append(new_code_cell("plt.plot([1, 2])", "c1"))
    svg = CacheKey.of(nb, "pytorch", "lib", "svg").on("env").digest
    assert CacheKey.of(nb, "pytorch", "lib", "svg").on("env").digest == svg
    assert CacheKey.of(nb, "pytorch", "lib", "png").on("env").digest != svg


def test_a_retina_png_is_shown_at_the_size_its_metadata_names() -> None:
    out = {
        "output_type": "display_data",
        "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"},
        "metadata": {"image/png": {"width": 212, "height": 150}},
    }
    page = Page("page", Lines())
    shown = _output(node(out), page)
    assert shown is not None and shown["width"] == "212" and shown["height"] == "150"
    del out["metadata"]
    plain = _output(node(out), page)
    assert plain is not None and "width" not in plain


@pytest.mark.slow
def test_figures_are_inert_drawings_on_the_site_and_in_the_pdf(tmp_path: Path) -> None:
    root = pages_book(tmp_path / "book", {"page": PLOT + SHOWN}, config())
    assert load_config(root).html.figure_format == "svg"
    assert build(root) == 0
    plot, shown = executed(root)
    [figure] = [o for o in plot if "data" in o]
    assert "image/svg+xml" in figure["data"] and "image/png" not in figure["data"]
    assert any("<script>" in str(o.get("data", {})) for o in shown)  # as the kernel made it
    page = (root / "_build" / "html" / "page.html").read_text(encoding="utf-8")
    outputs = root / "_build" / "html" / "_images"
    drawings = {p.name: p.read_text(encoding="utf-8") for p in outputs.glob("*.svg")}
    assert len(drawings) == 2 and all(name in page for name in drawings)
    assert not list(outputs.glob("*.png"))
    [plotted] = [t for t in drawings.values() if "<path" in t and "circle" not in t]
    assert "<svg" in plotted
    [inert] = [t for t in drawings.values() if "<circle" in t]
    for gone in ("script", "alert", "onload", "foreignObject", TRACKER):
        assert gone not in inert, gone
    # The PDF includes the drawing, converted (xelatex cannot read SVG).
    assert build(root, "pdf") == 0
    pdf = PdfReader(root / "_build" / "pdf" / "figs-pytorch.pdf")
    forms = [
        x
        for p in pdf.pages
        for x in (p.get("/Resources", {}).get("/XObject", {}) or {}).values()
        if x.get_object().get("/Subtype") == "/Form"
    ]
    assert len(forms) == 2, "the plot and the inert drawing, each a PDF drawing"


@pytest.mark.slow
def test_png_figures_have_twice_the_pixels_and_the_usual_size(tmp_path: Path) -> None:
    # A kernel started as a process (the other test's is forked from a zygote).
    unforked = config("png", "fork_kernels = false\n")
    root = pages_book(tmp_path / "book", {"page": PLOT + OWN_PNG}, unforked)
    assert build(root) == 0
    retina, plain = (next(o for o in outs if "data" in o) for outs in executed(root))
    assert "image/svg+xml" not in retina["data"]
    doubled = png_size(base64.b64decode(retina["data"]["image/png"]))
    usual = png_size(base64.b64decode(plain["data"]["image/png"]))
    assert all(abs(d - 2 * u) <= 2 for d, u in zip(doubled, usual, strict=True)), (doubled, usual)
    assert retina["metadata"]["image/png"]["width"] == doubled[0] // 2
    page = (root / "_build" / "html" / "page.html").read_text(encoding="utf-8")
    assert f"width: {doubled[0] // 2}px" in page or f'width="{doubled[0] // 2}' in page
