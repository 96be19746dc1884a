"""SVG outputs and figures are rebuilt from an allow-list: whatever a reader's browser would
fetch from outside the image, read as the browser reads it (CSS escapes and comments
undone), is gone; the drawing, and its references into itself, stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.render.svg import sanitize_svg

from ..books import pages_book

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
TRACKER = "tracker.example"

# Each reaches out to TRACKER when the file is opened, and passed the old sanitiser.
REACHING_OUT = {
    "fill_url": f'<rect width="4" height="4" fill="url(https://{TRACKER}/f#g)"/>',
    "filter_url": f'<rect width="4" height="4" filter="url(https://{TRACKER}/x.svg#f)"/>',
    "mask_url": f'<rect width="4" height="4" mask="url(//{TRACKER}/m.svg#m)"/>',
    "clip_path_url": f'<rect width="4" height="4" clip-path="url(\'https://{TRACKER}/c\')"/>',
    "marker_url": f'<path d="M0 0L4 4" marker-end="url(https://{TRACKER}/m#a)"/>',
    "escaped_url": f'<rect width="4" height="4" style="fill: \\75 rl(https://{TRACKER}/e)"/>',
    "escaped_import": f"<style>@\\69mport 'https://{TRACKER}/s.css';</style>",
    "commented_url": f'<rect width="4" style="fill: u\\72l(/**/https://{TRACKER}/c)"/>',
    "image_set": f"<style>rect {{ fill: image-set('https://{TRACKER}/i.png' 1x) }}</style>",
    "style_url_escaped_sheet": f"<style>rect {{ fill: \\000075rl(https://{TRACKER}/s) }}</style>",
    "set_url": f'<rect width="4"><set attributeName="fill" to="url(https://{TRACKER}/s)"/></rect>',
    "animate_href": (
        f'<use href="#a"><animate attributeName="href" values="https://{TRACKER}/u"/></use>'
    ),
    "fe_image": f'<filter id="f"><feImage href="https://{TRACKER}/i.png"/></filter>',
    "image_href": f'<image xlink:href="https://{TRACKER}/i.png" width="4" height="4"/>',
    "use_outside": f'<use href="https://{TRACKER}/sprite.svg#icon"/>',
    "other_namespace": (
        f'<h:img xmlns:h="http://www.w3.org/1999/xhtml" src="https://{TRACKER}/p.png"/>'
    ),
    "font_face": f"<style>@font-face {{ font-family: x; src: url(https://{TRACKER}/f) }}</style>",
    "cursor": f'<rect width="4" cursor="url(https://{TRACKER}/c.cur), auto"/>',
    "data_svg": f'<image href="data:image/svg+xml,&lt;svg&gt;{TRACKER}"/>',
}


@pytest.mark.parametrize("kind", list(REACHING_OUT))
def test_what_reaches_outside_the_image_is_gone(kind: str) -> None:
    clean = sanitize_svg(HEAD + REACHING_OUT[kind] + "</svg>")
    assert clean is not None
    assert TRACKER not in clean and "tracker" not in clean.lower(), clean


def test_the_drawing_and_its_references_into_itself_stay() -> None:
    png = "data:image/png;base64,iVBORw0KGgo="
    drawing = (
        HEAD + '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/>'
        '</linearGradient><clipPath id="c"><rect width="2" height="2"/></clipPath></defs>'
        '<rect width="4" height="4" fill="url(#g)" clip-path="url(#c)"'
        ' style="stroke: blue; fill: url(&quot;#g&quot;)"/>'
        '<text x="1" y="2" font-size="3">a &lt; b</text>'
        f'<use xlink:href="#c"/><image href="{png}" width="1" height="1"/>'
        "<style>rect { stroke-width: 2 }</style></svg>"
    )
    clean = sanitize_svg(drawing)
    assert clean is not None
    for kept in (
        'fill="url(#g)"',
        'clip-path="url(#c)"',
        'style="stroke: blue; fill: url(&quot;#g&quot;)"',
        "a &lt; b</text>",
        'xlink:href="#c"',
        f'href="{png}"',
        "rect { stroke-width: 2 }",
        '<stop offset="0" stop-color="red">',
    ):
        assert kept in clean, (kept, clean)
    assert sanitize_svg(clean) == clean  # rebuilt once, stable


def test_a_matplotlib_figure_keeps_its_shapes() -> None:
    figure = (
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
        '  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        '<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="10pt" height="10pt"'
        ' viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg" version="1.1">'
        "<metadata><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>"
        '</metadata><defs><style type="text/css">*{stroke-linejoin: round}</style></defs>'
        '<g id="figure_1"><path d="M 0 10 L 10 0" style="fill: #ffffff"/>'
        '<use xlink:href="#m1" x="1" y="2" style="stroke: #1f77b4"/></g></svg>'
    )
    clean = sanitize_svg(figure)
    assert clean is not None
    for kept in ('viewBox="0 0 10 10"', '<path d="M 0 10 L 10 0"', 'xlink:href="#m1"'):
        assert kept in clean
    assert "rdf" not in clean


@pytest.mark.slow
def test_the_books_own_svg_figures_are_rebuilt_in_the_site(tmp_path: Path) -> None:
    figure = (
        HEAD + '<rect width="4" height="4" fill="url(https://tracker.example/f)"/>'
        '<circle r="2" onload="alert(1)"/><script>alert(2)</script></svg>'
    )
    config = "[project]\nname = s\ntitle = S\n[build]\ntabs = pytorch\neval_notebook = false\n"
    root = pages_book(tmp_path / "book", {"page": "![A figure](fig.svg)\n"}, config)
    (root / "fig.svg").write_text(figure)
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    (copied,) = (root / "_build" / "html" / "_images").glob("*.svg")
    text = copied.read_text()
    assert "<circle" in text and "<rect" in text
    for gone in ("tracker", "alert", "script", "onload"):
        assert gone not in text, gone
    assert (root / "fig.svg").read_text() == figure  # the book's file is left as it is
