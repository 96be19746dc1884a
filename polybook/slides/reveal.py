"""A deck as one reveal.js page: its slides, their math, figures and code with the outputs
the build executed. It needs nothing but the folder of decks (reveal.js and MathJax in
``_static/``, copied from npm), so it works offline from ``file://``; figures and image
outputs are inside the page itself."""

from __future__ import annotations

import base64
import html
import mimetypes
import posixpath
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from nbformat import NotebookNode
from pygments import highlight  # type: ignore[import-untyped]
from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]

from polybook.nb import strip_ansi
from polybook.render.outputs import sanitize_html
from polybook.render.sphinx.highlight import CellLexer
from polybook.slides.deck import Deck, DeckCell
from polybook.slides.rise import overlay

STATIC = "_static"  # beside the framework folders of decks
IMAGE_MIMES = ("image/png", "image/jpeg", "image/svg+xml")
# Sized for a projector; a slide whose content is taller scrolls.
SLIDES_CSS = """\
.reveal .slides section { height: 100%; overflow-y: auto; text-align: left; }
.reveal .slides section h1 { font-size: 1.6em; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal .slides section h2 { font-size: 1.3em; }
.reveal p, .reveal li { font-size: 0.8em; line-height: 1.35; }
.reveal pre { width: 100%; font-size: 0.45em; box-shadow: none; margin: 0.4em 0; }
.reveal pre code { max-height: none; padding: 0.4em 0.6em; }
.reveal .pb-output pre code { background: #f4f4f4; color: #222; }
.reveal .pb-output-error pre code { background: #fdecea; }
.reveal img.pb-figure { display: block; min-width: 30%; max-height: 55vh; margin: 0.3em 0; }
.pb-corner { position: fixed; top: 0.6em; z-index: 10; font-size: 1em; }
.pb-top-left { left: 2%; }
.pb-top-right { right: 2%; }
"""


def slides_css() -> str:
    """The decks' own style, the code's colours included."""
    colours = str(HtmlFormatter(style="default").get_style_defs(".reveal .highlight"))
    return SLIDES_CSS + colours + "\n"


def _data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


class _Figures:
    """The images a deck's Markdown names, read relative to its page inside the book."""

    def __init__(self, root: Path, page: str) -> None:
        self.root = root.resolve()
        self.base = PurePosixPath(page).parent

    def uri(self, src: str) -> str:
        if "://" in src or src.startswith("data:"):
            return src
        relative = posixpath.normpath((self.base / src).as_posix())
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root) or not target.is_file():
            return src
        mime = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return _data_uri(target.read_bytes(), mime)


def _markdown(figures: _Figures) -> MarkdownIt:
    def math(content: str, options: dict[str, Any]) -> str:
        text = html.escape(content)
        return f"\\[{text}\\]" if options.get("display_mode") else f"\\({text}\\)"

    md = MarkdownIt("commonmark").enable("table")
    md.use(dollarmath_plugin, double_inline=True, renderer=math)

    shown = md.renderer.rules["image"]  # type: ignore[attr-defined]

    def image(renderer: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
        token = tokens[index]
        token.attrSet("src", figures.uri(str(token.attrGet("src") or "")))
        token.attrSet("class", "pb-figure")
        return str(shown(tokens, index, options, env))

    md.add_render_rule("image", image)
    return md


def _code(source: str) -> str:
    formatter = HtmlFormatter(cssclass="highlight", wrapcode=True)
    return str(highlight(source, CellLexer(), formatter))


def _output(out: NotebookNode) -> str:
    kind = out.get("output_type")
    if kind == "stream":
        return _pre(strip_ansi(out.get("text", "")), "pb-output")
    if kind == "error":
        return _pre(strip_ansi("\n".join(out.get("traceback", []))), "pb-output pb-output-error")
    data = out.get("data", {})
    for mime in IMAGE_MIMES:
        if mime in data:
            value = data[mime]
            raw = value.encode() if mime == "image/svg+xml" else base64.b64decode(value)
            return f'<p class="pb-output"><img alt="cell output" src="{_data_uri(raw, mime)}"></p>'
    if "text/html" in data:
        return f'<div class="pb-output">{sanitize_html(data["text/html"])}</div>'
    if "text/plain" in data:
        return _pre(strip_ansi(data["text/plain"]), "pb-output")
    return ""


def _pre(text: str, classes: str) -> str:
    return f'<div class="{classes}"><pre><code>{html.escape(text.rstrip())}</code></pre></div>'


def _cell(cell: DeckCell, md: MarkdownIt) -> str:
    shown = _shown(cell, md)
    return f'<div class="fragment">\n{shown}\n</div>' if cell.fragment else shown


def _shown(cell: DeckCell, md: MarkdownIt) -> str:
    if cell.kind == "markdown":
        return str(md.render(cell.source))
    parts = [_code(cell.source)] if cell.source else []
    parts += [_output(out) for out in cell.outputs]
    return "\n".join(part for part in parts if part)


def reveal_html(
    deck: Deck,
    root: Path,
    framework_name: str,
    top_left: str = "",
    top_right: str = "",
) -> str:
    """The deck as one page; ``root`` is the book's folder, where its figures are read."""
    md = _markdown(_Figures(root, deck.page))
    depth = len(PurePosixPath(deck.page).parts)  # <framework>/<page>: this far from _static
    static = "../" * depth + STATIC
    sections = "\n".join(
        "<section>\n" + "\n".join(_cell(cell, md) for cell in slide) + "\n</section>"
        for slide in deck.slides
    )
    title = html.escape(f"{deck.title} ({framework_name})")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{static}/reveal/reveal.css">
<link rel="stylesheet" href="{static}/reveal/theme/white.css">
<link rel="stylesheet" href="{static}/polybook-slides.css">
</head>
<body>
{overlay(top_left, top_right)}
<div class="reveal"><div class="slides">
{sections}
</div></div>
<script src="{static}/reveal/reveal.js"></script>
<script>
window.MathJax = {{tex: {{inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]]}}}};
Reveal.initialize({{hash: true, slideNumber: "c/t", width: 1280, height: 800, margin: 0.04}});
</script>
<script src="{static}/mathjax/tex-chtml.js"></script>
</body>
</html>
"""
