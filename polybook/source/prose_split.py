"""The prose between a page's cells split into shared and per-framework blocks (by its
``:begin_tab:`` / ``:end_tab:`` marks), their slide marks read; the names of frameworks that
``%%tab`` lines and tab marks give."""

from __future__ import annotations

import bisect
from difflib import get_close_matches

from markdown_it.token import Token

from polybook.config.declarations import SHIPPED
from polybook.diagnostics import Diagnostic, Location, PolybookError
from polybook.source.model import Block, Prose, TabProse
from polybook.source.scan import END_TAB, Fence, TabMark, code_spans, tab_marks
from polybook.source.slide_marks import SlideMark, may_hold_marks, read_slide_marks

# Names authors use for a framework, beside polybook's own.
ALIASES = {"torch": "pytorch", "tf": "tensorflow", "flax": "jax", "mx": "mxnet"}
OpenTab = tuple[tuple[str, ...], int]  # frameworks of an open :begin_tab:, its 1-based line


def unknown_framework(name: str, tabs: tuple[str, ...]) -> str:
    """Why ``name`` is not one of ``tabs``, suggesting the closest book tab."""
    listed = ", ".join(tabs)
    if name in SHIPPED:
        return f"framework {name!r}, which is not in [build] tabs ({listed})"
    key = name.lower()
    alias = ALIASES.get(key, "")
    close = [alias] if alias in tabs else get_close_matches(key, tabs, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown framework {name!r}{hint} (book tabs: {listed})"


def parse_tab_names(
    spec: str, tabs: tuple[str, ...], where: Location, what: str, dropped: set[str] | None = None
) -> tuple[str, ...]:
    """``"pytorch, mxnet"`` or ``"all"`` -> framework names, validated against ``tabs``.

    A framework polybook knows that the book does not build (a one-framework edition of a
    four-framework book) is left out, as d2lbook leaves it, and added to ``dropped``; the
    result is empty when the block is for such frameworks only."""
    names = tuple(n for n in spec.replace(",", " ").split() if n)
    if not names:
        raise PolybookError(where, f"{what} names no framework", "parse.tab")
    if names == ("all",):
        return tabs
    for name in names:
        if name in tabs:
            continue
        if name not in SHIPPED or dropped is None:
            raise PolybookError(where, f"{what} names {unknown_framework(name, tabs)}", "parse.tab")
        dropped.add(name)
    return tuple(t for t in tabs if t in names)


def is_all(spec: str) -> bool:
    """Whether a ``%%tab`` or ``:begin_tab:`` spec is ``all``."""
    return spec.replace(",", " ").split() == ["all"]


def _tab_marks(tokens: list[Token], text: str, lines: list[str]) -> dict[int, TabMark]:
    """The page's tab marks, by 0-based line."""
    if ":begin_tab:" not in text and END_TAB not in text:
        return {}  # most pages
    return {mark.line - 1: mark for mark in tab_marks(tokens, lines)}


def _text(lines: list[str], start: int, end: int) -> tuple[str, int]:
    """Lines [start, end) less blank lines at either end, and the 1-based line of the first."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]), start + 1


class ProseSplit:
    """Splits the prose between cells into shared and per-framework blocks, their slide
    marks read."""

    def __init__(
        self,
        text: str,
        lines: list[str],
        tokens: list[Token],
        path: str,
        tabs: tuple[str, ...],
        own_slides: bool = False,
    ):
        self.lines = lines
        # A page with a slides section: its prose marks no slides, `(**x**)` is bold text.
        self.own_slides = own_slides
        self.marks = _tab_marks(tokens, text, lines)
        self.path = path
        self.tabs = tabs
        self.open: OpenTab | None = None
        self.warnings: list[Diagnostic] = []
        self.dropped: set[str] = set()  # frameworks named that the book does not build
        self.named: set[str] = set()  # frameworks the page's cells and tab prose name
        self.code = code_spans(tokens)
        self.fences: list[Fence] = []  # the prose's
        # 0-based lines inside code, for the slide marks' scan.
        self.sorted_literal = (
            sorted(n - 1 for first, end in self.code for n in range(first, end))
            if may_hold_marks(text)
            else []
        )

    def _block(self, text: str, line: int, frameworks: tuple[str, ...] | None) -> Block:
        """Shared prose (``frameworks`` None) or tab prose, its slide marks read."""
        marked: tuple[SlideMark, ...] = ()
        if may_hold_marks(text):
            first = bisect.bisect_left(self.sorted_literal, line - 1)
            last = bisect.bisect_left(self.sorted_literal, line - 1 + text.count("\n") + 1)
            literal = [n - line + 1 for n in self.sorted_literal[first:last]]
            parentheses = not self.own_slides
            found = read_slide_marks(text, line, self.path, literal, parentheses)
            text, marked = found.book, () if self.own_slides else found.marks
            self.warnings.extend(found.problems)
        if frameworks is None:
            return Prose(text, line, marked)
        return TabProse(frameworks, text, line, marked)

    def _begin(self, mark: TabMark, text: str, line: int, out: list[Block]) -> None:
        """A ``:begin_tab:``; ``text`` (at ``line``) is the prose before it."""
        names = mark.names or ""
        where = Location(self.path, mark.line)
        if mark.spaced:  # d2lbook reads it as a tab
            message = f"write :begin_tab:`{names}`, without a space before the backtick"
            self.warnings.append(Diagnostic(where, message, "parse.tab"))
        if self.open is not None:  # closed by the next one, as d2lbook does
            out.append(self._block(text, line, self.open[0]))
            message = f":begin_tab: opened here has no :end_tab: before line {mark.line}"
            opened = Location(self.path, self.open[1])
            self.warnings.append(Diagnostic(opened, message, "parse.tab"))
        elif text:
            out.append(self._block(text, line, None))
        named = parse_tab_names(names, self.tabs, where, ":begin_tab:", self.dropped)
        if not is_all(names):
            self.named.update(named)
        self.open = (named, mark.line)

    def blocks(self, start: int, end: int) -> list[Block]:
        """The blocks of lines [start, end); an open ``:begin_tab:`` carries over."""
        out: list[Block] = []
        chunk = start
        for number in range(start, end):
            if number not in self.marks:
                continue
            mark = self.marks[number]
            where = Location(self.path, number + 1)
            text, line = _text(self.lines, chunk, number)
            if mark.names is not None:
                self._begin(mark, text, line, out)
                if mark.rest:  # the tab's prose starts on the mark's line
                    message = "write the tab's text on the line after :begin_tab:"
                    self.warnings.append(Diagnostic(where, message, "parse.tab"))
                    self.lines[number] = mark.rest
                    chunk = number
                    continue
            elif self.open is None:  # d2lbook reads on past it, as two cells
                message = ":end_tab: without :begin_tab:"
                self.warnings.append(Diagnostic(where, message, "parse.tab"))
                if text:
                    out.append(self._block(text, line, None))
            else:
                out.append(self._block(text, line, self.open[0]))
                self.open = None
            chunk = number + 1
        text, line = _text(self.lines, chunk, end)
        if text:
            out.append(self._block(text, line, self.open[0] if self.open else None))
        # Prose for frameworks the book does not build only: left out.
        return [b for b in out if not isinstance(b, TabProse) or b.frameworks]
