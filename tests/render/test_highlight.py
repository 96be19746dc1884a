"""The code cells' lexer: IPython syntax read, whitespace left unwrapped."""

from __future__ import annotations

from pygments import highlight  # type: ignore[import-untyped]
from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]

from polybook.render.sphinx.highlight import CellLexer

CELL = (
    "%matplotlib inline\n"
    "class Board(d2l.HyperParameters):  #@save\n"
    '    """Plots points."""\n'
    "    def __init__(self, xs=[1,  2]):\n"
    "        self.xs = xs  # kept\n"
    "\n"
    "    @property\n"
    "    def first(self):\n"
    "        return self.xs[0]\n"
)


def test_whitespace_is_plain_text_and_the_code_is_kept_whole() -> None:
    html = highlight(CELL, CellLexer(), HtmlFormatter(nowrap=True))
    assert 'class="w"' not in html and 'class="err"' not in html
    assert '<span class="k">class</span> <span class="nc">Board</span>' in html
    text = html.replace("&quot;", '"')
    for tag in ("span", "/span"):
        text = "".join(part.split(">", 1)[-1] for part in text.split(f"<{tag}"))
    assert text == CELL
