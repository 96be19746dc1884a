"""d2lbook's slide marks in prose: the one grammar every output reads.

``[**text**]`` and ``(**text**)`` mark text that the book shows and the slides take;
``[~~text~~]`` and ``(~~text~~)`` mark text for the slides alone. ``[`` starts a new slide,
``(`` continues the current one. A mark may span lines and hold math, code and links; marks
do not nest. ``[**text**](url)`` is a link with bold text, not a mark. Code (spans, fences,
indented blocks) holds no marks.

:func:`read_slide_marks` returns the text as the book shows it — each mark's brackets
removed, slide-only text removed, every line break kept so that lines keep their numbers —
with the marks and what is wrong with them (located).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection
from dataclasses import dataclass

from polybook.diagnostics import Diagnostic, Location

OPENERS = {"[**": "**]", "(**": "**)", "[~~": "~~]", "(~~": "~~)"}
CLOSERS = {closer: opener for opener, closer in OPENERS.items()}
TOKEN = re.compile(r"\[\*\*|\(\*\*|\[~~|\(~~|\*\*\]|\*\*\)|~~\]|~~\)")
# A code span: a run of backticks, what it holds, the same run again (a span that would
# hold a blank line is none: it is dropped where found).
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+$")
EMPTY_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s*$")
BLANK_LINE = re.compile(r"\n[ \t]*\n")
# What may follow a removed slide-only mark without the space before it.
TIGHT = ("", " ", "\n", ".", ",", ";", ":", "!", "?", ")")
HINTS = ("[**", "(**", "**]", "**)", "[~~", "(~~", "~~]", "~~)")


@dataclass(frozen=True)
class SlideMark:
    """One mark: what it holds and where it starts.

    ``paragraph`` counts the blank-line-separated paragraphs of its block before it;
    ``item`` is the list marker (``- ``, ``1. ``) when the mark opens a list item's text.
    """

    text: str
    line: int
    new_slide: bool  # ``[``: starts a slide; ``(``: continues one
    in_book: bool  # ``**``: the book shows the text too; ``~~``: the slides alone
    paragraph: int = 0
    item: str = ""


@dataclass(frozen=True)
class MarkedText:
    """A prose block read for slide marks."""

    book: str  # the text as the book shows it, as many lines as the source
    marks: tuple[SlideMark, ...] = ()
    problems: tuple[Diagnostic, ...] = ()


def may_hold_marks(text: str) -> bool:
    """Whether ``text`` may hold a mark: most prose has none and needs no scan."""
    return any(hint in text for hint in HINTS)


@dataclass
class _Open:
    token: str
    start: int  # offset of the token
    line: int


def _item(text: str, offset: int) -> str:
    """The list marker before ``offset`` when only one stands between it and its line's start."""
    start = text.rfind("\n", 0, offset) + 1
    before = text[start:offset]
    return before.strip() + " " if LIST_ITEM.match(before) else ""


def _is_link(text: str, end: int) -> bool:
    """Whether ``**]`` ending at ``end`` closes a link's text: ``[**a**](url)``, ``[**a**][r]``."""
    return end < len(text) and text[end] in "(["


def _literal_spans(text: str, literal: Collection[int]) -> list[tuple[int, int]]:
    """[start, end) offsets in ``text`` of its lines ``literal`` (0-based), in order."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    numbers = sorted(n for n in literal if 0 <= n < len(lines))
    return [(starts[n], starts[n] + len(lines[n]) + 1) for n in numbers]


class _Scan:
    """One pass over a block's tokens: marks paired, problems located."""

    def __init__(
        self, text: str, first_line: int, path: str, literal: Collection[int], parentheses: bool
    ):
        self.text = text
        self.parentheses = parentheses  # whether `(**` and `(~~` open marks
        self.first_line = first_line
        self.path = path
        self.skip = _literal_spans(text, literal) if literal else []
        self.problems: list[Diagnostic] = []
        self.marks: list[tuple[int, int, SlideMark]] = []  # (start, end, mark)
        self.current: _Open | None = None
        self.nested: list[str] = []  # closers of openers reported as nested, still to come

    def line(self, offset: int) -> int:
        return self.first_line + self.text.count("\n", 0, offset)

    def literal(self, offset: int) -> bool:
        """Whether ``offset`` is in code: a line of a fence, or a code span."""
        at = bisect.bisect_right(self.skip, (offset, len(self.text) + 1)) - 1
        return at >= 0 and self.skip[at][0] <= offset < self.skip[at][1]

    def warn(self, offset: int, message: str) -> None:
        where = Location(self.path, self.line(offset))
        self.problems.append(Diagnostic(where, message, "parse.slide"))

    def run(self) -> None:
        text = self.text
        if "``" in text:  # code spans hold no marks either; a run of several backticks
            found = CODE_SPAN.finditer(text)
            spans = [m.span() for m in found if not BLANK_LINE.search(m.group(2))]
            self.skip = sorted([*self.skip, *spans])
        single = "`" in text and "``" not in text  # spans of one backtick: counted
        for match in TOKEN.finditer(text):
            token, start, end = match.group(), match.start(), match.end()
            if self.skip and self.literal(start):
                continue
            if single and text.count("`", text.rfind("\n\n", 0, start) + 1, start) % 2:
                continue  # inside `code`: an odd number of backticks since the paragraph began
            if not self.parentheses and (token[0] == "(" or token[-1] == ")"):
                continue
            if token in OPENERS:
                self.opener(token, start)
            else:
                self.closer(token, start, end)
        if self.current is not None:
            token = self.current.token
            self.warn(self.current.start, f"`{token}` opens a slide mark that is never closed")

    def opener(self, token: str, start: int) -> None:
        before = self.text[start - 1 : start]
        if token[0] == "(" and before.isascii() and (before.isalnum() or before == "_"):
            return  # a call's `f(**kwargs)`, not a mark (text in any script may precede one)
        if token == "(**" and self.bold_in_parentheses(start):
            return
        if self.current is None:
            self.current = _Open(token, start, self.line(start))
            return
        outer = self.current
        message = f"opens a slide mark inside the `{outer.token}` opened at line {outer.line}"
        self.warn(start, f"`{token}` {message}: marks do not nest")
        self.nested.append(OPENERS[token])

    def closer(self, token: str, start: int, end: int) -> None:
        opener, current = CLOSERS[token], self.current
        link = token == "**]" and _is_link(self.text, end)
        if self.nested and self.nested[-1] == token:  # a nested mark's: reported with it
            self.nested.pop()
        elif current is None:
            if not link and not (token == "**)" and self.closes_bold(start)):
                self.warn(start, f"`{token}` closes no slide mark (`{opener}` opens one)")
        elif current.token != opener:
            closes = OPENERS[current.token]
            message = f"does not close the `{current.token}` opened at line {current.line}"
            self.warn(start, f"`{token}` {message} (`{closes}` does)")
            self.current = None  # both are left as text
        else:
            if not link:
                self.marks.append((current.start, end, self.mark(current, start)))
            self.current = None

    def bold_in_parentheses(self, start: int) -> bool:
        """Whether `(**` at ``start`` opens bold text in parentheses, as in ``(**SIFT**,
        2004)``: the next ``**`` is not followed by ``)``."""
        end = self.text.find("**", start + 3)
        if end < 0:
            return False
        while self.text[end : end + 1] == "*":  # `*emphasis***)` closes the mark too
            end += 1
        return self.text[end : end + 1] != ")"

    def closes_bold(self, start: int) -> bool:
        """Whether ``**`` at ``start`` closes bold text opened earlier in its paragraph
        (``(**SIFT**, a **detector**)``), an odd number of ``**`` standing before it."""
        paragraph = self.text.rfind("\n\n", 0, start) + 1
        return self.text.count("**", paragraph, start) % 2 == 1

    def mark(self, opened: _Open, end: int) -> SlideMark:
        text = self.text
        return SlideMark(
            text[opened.start + 3 : end],
            opened.line,
            new_slide=opened.token[0] == "[",
            in_book=opened.token.endswith("**"),
            paragraph=len(BLANK_LINE.findall(text, 0, opened.start)),
            item=_item(text, opened.start),
        )


def read_slide_marks(
    text: str,
    first_line: int,
    path: str,
    literal: Collection[int] = (),
    parentheses: bool = True,
) -> MarkedText:
    """The marks of a prose block whose first line is ``first_line``; ``literal`` holds the
    0-based lines of the block inside code fences or indented code, which hold no marks.
    Without ``parentheses``, ``(**…**)`` and ``(~~…~~)`` are text, not marks."""
    if not may_hold_marks(text):
        return MarkedText(text)
    scan = _Scan(text, first_line, path, literal, parentheses)
    scan.run()
    marks = scan.marks
    return MarkedText(_book_text(text, marks), tuple(m for _, _, m in marks), tuple(scan.problems))


def _book_text(text: str, marks: list[tuple[int, int, SlideMark]]) -> str:
    """``text`` with each mark's brackets removed and slide-only text blanked (its line
    breaks kept); a list item left empty goes too."""
    if not marks:
        return text
    parts: list[str] = []
    position = 0
    for start, end, mark in marks:
        before = text[position:start]
        if not mark.in_book and before.endswith(" ") and text[end : end + 1] in TIGHT:
            before = before[:-1]  # "a sum (~~x~~)." reads "a sum."
        parts.append(before)
        parts.append(mark.text if mark.in_book else "\n" * mark.text.count("\n"))
        position = end
    parts.append(text[position:])
    lines = "".join(parts).split("\n")
    if any(m.item and not m.in_book for _, _, m in marks):
        lines = ["" if EMPTY_ITEM.match(line) else line for line in lines]
    return "\n".join(lines)
