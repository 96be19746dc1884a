"""Sphinx extension: Python code is highlighted with IPython's lexer.

Code cells may hold IPython syntax (``%matplotlib inline``, ``%%time``, ``!ls``), which
Pygments' Python lexer cannot read (Sphinx then warns "Could not lex literal_block"). The
IPython lexer reads plain Python as the Python lexer does, and IPython syntax too; what it
still cannot read (``!cmd`` inside a ``%%time`` cell) is shown as plain text, not an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pygments.token import Error, Text, Whitespace  # type: ignore[import-untyped]
from sphinx.application import Sphinx

try:
    from ipython_pygments_lexers import IPython3Lexer as Base  # type: ignore[import-untyped]
except ImportError:  # not installed: Python's, IPython lines shown as plain text
    from pygments.lexers import PythonLexer as Base  # type: ignore[import-untyped]


class CellLexer(Base):  # type: ignore[misc]
    """Keeps a block's first and last newlines, as Sphinx's own lexers do. Whitespace is
    plain text: no style draws it, and a ``<span class="w">`` around each run of spaces is
    a twentieth of a code-heavy page's bytes."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("stripnl", False)
        super().__init__(**options)

    def get_tokens_unprocessed(
        self, text: str, stack: tuple[str, ...] = ("root",)
    ) -> Iterator[tuple[int, Any, str]]:
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            yield index, Text if token in Error or token in Whitespace else token, value


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_lexer("python", CellLexer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
