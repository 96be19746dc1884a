"""Sphinx extension: Python code is highlighted with IPython's lexer.

Code cells may hold IPython syntax (``%matplotlib inline``, ``%%time``, ``!ls``), which
Pygments' Python lexer cannot read (Sphinx then warns "Could not lex literal_block"). The
IPython lexer reads plain Python as the Python lexer does, and IPython syntax too; what it
still cannot read (``!cmd`` inside a ``%%time`` cell) is shown as plain text, not an error.
Each of its own rules needs a ``%``, ``!`` or ``?``, and it tries them all before Python's
at each token: a cell with none of the three is read by Python's lexer alone, to the same
tokens (d2l-en's four tabs: 93% of its cells, a third of their lexing).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pygments.lexers import PythonLexer  # type: ignore[import-untyped]
from pygments.token import Error, Text, Whitespace  # type: ignore[import-untyped]
from sphinx.application import Sphinx
from sphinx.highlighting import PygmentsBridge

try:
    from ipython_pygments_lexers import IPython3Lexer as Base  # type: ignore[import-untyped]
except ImportError:  # not installed: Python's, IPython lines shown as plain text
    Base = PythonLexer

IPYTHON_MARKS = ("%", "!", "?")  # one of them in each rule IPython's lexer adds to Python's


class CellLexer(Base):  # type: ignore[misc]
    """Keeps a block's first and last newlines, as Sphinx's own lexers do. Whitespace is
    plain text: no style draws it, and a ``<span class="w">`` around each run of spaces is
    a twentieth of a code-heavy page's bytes."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("stripnl", False)
        super().__init__(**options)
        self.python = PythonLexer(**options)

    def get_tokens_unprocessed(
        self, text: str, stack: tuple[str, ...] = ("root",)
    ) -> Iterator[tuple[int, Any, str]]:
        if any(mark in text for mark in IPYTHON_MARKS):
            found = super().get_tokens_unprocessed(text, stack)
        else:
            found = self.python.get_tokens_unprocessed(text, stack)
        for index, token, value in found:
            yield index, Text if token in Error or token in Whitespace else token, value


QUIET_LEXERS = frozenset({"python", "ipython3", "none"})  # never warn: safe to keep
KEPT_BLOCKS = 20000  # highlighted blocks kept by a Sphinx process


class Highlighted:
    """A Sphinx process's highlighted blocks and formatters, kept by what makes them.

    Sphinx makes a new HTML formatter (a style sheet computed anew) for each block, and a
    page written again (an edit under ``polybook serve``) highlights every block again.
    Blocks of lexers that never warn are kept by their text and options; formatters by
    their options."""

    def __init__(self) -> None:
        self.blocks: dict[tuple[Any, ...], str] = {}
        self.formatters: dict[str, Any] = {}

    def formatter(self, bridge: PygmentsBridge, **kwargs: Any) -> Any:
        kwargs.update(bridge.formatter_args)
        key = repr(sorted(kwargs.items()))
        if key not in self.formatters:
            self.formatters[key] = bridge.formatter(**kwargs)
        return self.formatters[key]

    def block(
        self,
        bridge: PygmentsBridge,
        source: str,
        lang: str,
        opts: dict[str, Any] | None = None,
        force: bool = False,
        location: Any = None,
        **kwargs: Any,
    ) -> str:
        made = HIGHLIGHT_BLOCK.__get__(bridge)
        if lang not in QUIET_LEXERS or not isinstance(source, str):
            return str(made(source, lang, opts, force, location, **kwargs))
        style = repr(bridge.formatter_args.get("style"))  # an app's pygments_style
        key = (bridge.dest, style, source, lang, repr(opts), force, repr(sorted(kwargs.items())))
        found = self.blocks.get(key)
        if found is None:
            found = self.blocks[key] = str(made(source, lang, opts, force, location, **kwargs))
            if len(self.blocks) > KEPT_BLOCKS:
                self.blocks.pop(next(iter(self.blocks)))
        return found


HIGHLIGHT_BLOCK = PygmentsBridge.highlight_block
HIGHLIGHTED = Highlighted()


def _keep_highlighted() -> None:
    """Sphinx's highlighting, its blocks and formatters kept (once per process)."""
    if PygmentsBridge.highlight_block is not HIGHLIGHT_BLOCK:
        return

    def highlight_block(self: PygmentsBridge, source: str, lang: str, *a: Any, **k: Any) -> str:
        return HIGHLIGHTED.block(self, source, lang, *a, **k)

    def get_formatter(self: PygmentsBridge, **kwargs: Any) -> Any:
        return HIGHLIGHTED.formatter(self, **kwargs)

    PygmentsBridge.highlight_block = highlight_block  # type: ignore[method-assign]
    PygmentsBridge.get_formatter = get_formatter  # type: ignore[method-assign]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_lexer("python", CellLexer)
    _keep_highlighted()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
