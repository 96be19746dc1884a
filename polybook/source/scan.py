"""One scan of d2l Markdown: what each prose line marks, and which lines are code.

The marks d2l prose writes — roles (``:numref:``, ``:ref:``, ``:eqref:``, ``:cite:``…),
labels (``:label:``, ``:eqlabel:``, ``$$ … $$ :eqlabel:``), tab marks, images and headings —
are defined here once, and found once per text (when first asked for) with their 1-based
source lines. Lines inside code (fenced examples, indented code) hold none: which lines
those are comes from markdown-it's block parse (:mod:`polybook.source.parse` makes a page's
index from the tokens it reads the page with; :func:`scan` parses a text alone, such as a
notebook's Markdown cell).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

# A role's target is between backticks, one each side (some d2l pages write two).
ROLE = re.compile(r":(numref|ref|eqref|cite|citet|citep):(``?)([^`]+)\2")
CITE_ROLES = ("cite", "citet", "citep")
# A role, or a code span (whose roles stay as written): the first that starts, roles first.
UNCLOSED_ROLE = re.compile(r":(numref|ref|eqref|cite|citet|citep):`")  # what is left of one
ROLE_OR_CODE = re.compile(ROLE.pattern + r"|(`+).+?(?<!`)\4(?!`)")
EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>\s*$", re.S)  # :numref:`Title %s <label>`
LABEL = re.compile(r"^\s*:(label|eqlabel):`([^`]+)`\s*$")
# An equation's label on its closing line, as some d2l pages write it: `$$ … $$ :eqlabel:`x``.
TRAILING_EQLABEL = re.compile(r"^(?P<math>.*\$\$)\s*:eqlabel:`(?P<label>[^`]+)`\s*$")
# An image: what opens it, and its path (group 2), with or without <>.
IMAGE = re.compile(r"(!\[[^\]]*\]\(\s*)<?([^)\s>]+)>?")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CAPTION = re.compile(r"^(?::(?![\w-]+:`)|Table:)\s*(.+)$")  # a table's caption, pandoc's way
# d2lbook reads ":begin_tab: `pytorch`" too (a space before the names): so does polybook.
# Text after the mark on its line is the tab's first line (d2l-pt writes it so; d2lbook drops it).
BEGIN_TAB = re.compile(r"^:begin_tab:(\s*)`([^`]*)`(?:\s+(\S.*))?$")
END_TAB = ":end_tab:"
FENCE_MARKS = ("```", "~~~")
# Where a mark may be: a role's or label's name, an image, a heading.
CANDIDATE = re.compile(r":[a-z]+:`|!\[|^[ \t]*#", re.M)

# Block structure alone (see :mod:`polybook.source.parse`, which adds d2lbook's cells).
_blocks = MarkdownIt("commonmark").disable(["inline", "lheading"])

Line = tuple[int, str]  # (1-based source line, text)


@dataclass(frozen=True)
class Role:
    """``:numref:`spec``` and the like; ``spec`` as written (``Title %s <label>`` too)."""

    line: int
    role: str
    spec: str

    @property
    def target(self) -> str:
        """The label it names (the keys it cites, for a citation)."""
        explicit = EXPLICIT.match(self.spec)
        return (explicit.group(2) if explicit else self.spec).strip()

    @property
    def title(self) -> str:
        """An explicit title (``Title %s`` of ``Title %s <label>``), else ""."""
        explicit = EXPLICIT.match(self.spec)
        return explicit.group(1) if explicit else ""


@dataclass(frozen=True)
class Label:
    """A ``:label:`` or ``:eqlabel:`` (on its own line or after ``$$``)."""

    line: int
    kind: str  # "label" or "eqlabel"
    name: str


@dataclass(frozen=True)
class Image:
    line: int
    src: str


@dataclass(frozen=True)
class Heading:
    line: int
    depth: int
    title: str


@dataclass(frozen=True)
class TabMark:
    """``:begin_tab:`names``` (``names``; ``spaced``: written with a space before them) or
    ``:end_tab:`` (``names`` None)."""

    line: int
    names: str | None
    spaced: bool = False
    rest: str = ""  # text after the mark on its line, the tab's first line


@dataclass(frozen=True)
class Fence:
    """A fenced block: its opener's line, its last line (the closer's, if ``closed``)."""

    line: int
    end: int
    mark: str
    info: str
    closed: bool = True

    @property
    def body(self) -> range:
        """The lines between its marks."""
        return range(self.line + 1, self.end if self.closed else self.end + 1)


@dataclass(frozen=True)
class Marks:
    """What prose marks, in order of lines."""

    roles: tuple[Role, ...] = ()
    labels: tuple[Label, ...] = ()
    images: tuple[Image, ...] = ()
    headings: tuple[Heading, ...] = ()


@dataclass(frozen=True)
class Index:
    """What a text's prose marks, with the lines of its code.

    ``prose`` holds the text read, as (first line, text) blocks; ``code`` the spans of
    lines inside code ([first, end), a fence's own lines too); ``fences`` the fenced blocks
    of its prose. What the prose marks is found when first asked for.
    """

    prose: tuple[Line, ...] = ()
    code: tuple[tuple[int, int], ...] = ()
    fences: tuple[Fence, ...] = ()
    tab_marks: tuple[TabMark, ...] = ()

    @functools.cached_property
    def literal(self) -> frozenset[int]:
        """The lines inside code."""
        return frozenset(n for first, end in self.code for n in range(first, end))

    @functools.cached_property
    def marks(self) -> Marks:
        return _marks(self.prose, self.literal)

    @property
    def roles(self) -> tuple[Role, ...]:
        return self.marks.roles

    @property
    def labels(self) -> tuple[Label, ...]:
        return self.marks.labels

    @property
    def images(self) -> tuple[Image, ...]:
        return self.marks.images

    @property
    def headings(self) -> tuple[Heading, ...]:
        return self.marks.headings

    def lines(self) -> Iterator[Line]:
        """The prose lines outside code, in order."""
        literal = self.literal
        for first, text in self.prose:
            for number, line in enumerate(text.split("\n"), start=first):
                if number not in literal:
                    yield number, line

    def cited(self) -> tuple[str, ...]:
        """The BibTeX keys its citations name, in order, once each."""
        keys = [
            key.strip()
            for role in self.roles
            if role.role in CITE_ROLES
            for key in role.spec.split(",")
            if key.strip()
        ]
        return tuple(dict.fromkeys(keys))


EMPTY = Index()


def code_spans(tokens: Iterable[Token], first: int = 1) -> tuple[tuple[int, int], ...]:
    """The spans of lines (numbered from ``first``) of fences and indented code."""
    return tuple(
        (token.map[0] + first, token.map[1] + first)
        for token in tokens
        if token.map and token.type in ("fence", "code_block")
    )


def fences(tokens: Iterable[Token], first: int = 1) -> tuple[Fence, ...]:
    return tuple(fence(t, t.map[0], t.map[1], first) for t in tokens if t.type == "fence" and t.map)


def fence(token: Token, start: int, end: int, first: int = 1) -> Fence:
    """The fence of a ``fence`` token mapped to 0-based lines [start, end), its lines
    numbered from ``first``."""
    # markdown-it maps a closed fence to one line more than its content: the closer.
    closed = token.content.count("\n") == end - start - 2
    return Fence(start + first, end - 1 + first, token.markup, token.info.strip(), closed)


def tab_marks(tokens: Iterable[Token], lines: Sequence[str]) -> tuple[TabMark, ...]:
    """``:begin_tab:`` and ``:end_tab:`` lines of paragraphs (``lines`` from line 1)."""
    marks: list[TabMark] = []
    for token in tokens:
        if token.type != "paragraph_open" or token.map is None:
            continue
        for number in range(*token.map):
            stripped = lines[number].strip()
            if begin := BEGIN_TAB.match(stripped):
                spaced, rest = bool(begin.group(1)), begin.group(3) or ""
                marks.append(TabMark(number + 1, begin.group(2), spaced, rest))
            elif stripped == END_TAB:
                marks.append(TabMark(number + 1, None))
    return tuple(marks)


def _candidates(prose: Iterable[Line], literal: frozenset[int]) -> Iterator[Line]:
    """The prose lines outside code that may hold a mark (most lines hold none)."""
    for first, text in prose:
        if ":" not in text and "![" not in text and "#" not in text:
            continue
        number, counted, line_end = first, 0, -1
        for found in CANDIDATE.finditer(text):
            at = found.start()
            if at <= line_end:
                continue  # a line already given
            number += text.count("\n", counted, at)
            counted = at
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
            if number not in literal:
                yield number, text[text.rfind("\n", 0, at) + 1 : line_end]


def _marks(prose: tuple[Line, ...], literal: frozenset[int]) -> Marks:
    """What ``prose`` (blocks of text, each with its first line) marks outside the lines in
    ``literal``."""
    roles: list[Role] = []
    labels: list[Label] = []
    images: list[Image] = []
    headings: list[Heading] = []
    for number, text in _candidates(prose, literal):
        if ":" in text and "`" in text:  # a mark's name and its target
            if label := LABEL.match(text):
                labels.append(Label(number, label.group(1), label.group(2).strip()))
                continue
            if ":eqlabel:" in text and (trailing := TRAILING_EQLABEL.match(text)):
                labels.append(Label(number, "eqlabel", trailing.group("label").strip()))
            roles.extend(
                Role(number, m.group(1), m.group(3))
                for m in ROLE_OR_CODE.finditer(text)
                if not m.group(4)  # a code span's roles are as written
            )
        if "![" in text:
            images.extend(Image(number, m.group(2)) for m in IMAGE.finditer(text))
        if text.lstrip().startswith("#") and (heading := HEADING.match(text.strip())):
            headings.append(Heading(number, len(heading.group(1)), heading.group(2)))
    return Marks(tuple(roles), tuple(labels), tuple(images), tuple(headings))


def may_hold_code(text: str) -> bool:
    """Whether ``text`` may hold a fence or indented code (most prose cells do not)."""
    return any(mark in text for mark in FENCE_MARKS) or "    " in text or "\t" in text


def scan(text: str, first: int = 1) -> Index:
    """The index of a Markdown text whose first line is line ``first``."""
    if not may_hold_code(text):
        return Index(((first, text),))
    tokens = _blocks.parse(text if text.endswith("\n") else text + "\n")
    return Index(((first, text),), code_spans(tokens, first), fences(tokens, first))
