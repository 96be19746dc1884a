"""The code cells' lexer: IPython syntax read, whitespace left unwrapped."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from ipython_pygments_lexers import IPython3Lexer  # type: ignore[import-untyped]
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


# Python as code cells write it, and the characters IPython's own rules read besides.
PIECES = ["x", " = ", "d2l.plot(", ")", "(", "[1, 2]", "'s'", '"""doc"""', "# note", "\n"]
PIECES += ["    ", "def f(a):", "class A(B):", "@save", "lambda: 1", " != ", "1e-3", "\\\n"]
PIECES += ["%", "%%time\n", "%matplotlib inline\n", "!", "!pip install d2l\n", "?", "x?\n"]
PIECES += ["f'{x}'", "import torch\n", "@", "**", "..."]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_a_cell_read_by_pythons_lexer_alone_gets_ipythons_tokens(code: str) -> None:
    """Cells without ``%``, ``!`` or ``?`` are read by Python's lexer: the same tokens as
    IPython's; the others by IPython's."""
    ipython = CellLexer()
    ipython.python = IPython3Lexer(stripnl=False)  # every cell read by IPython's lexer
    assert list(CellLexer().get_tokens_unprocessed(code)) == list(
        ipython.get_tokens_unprocessed(code)
    )
