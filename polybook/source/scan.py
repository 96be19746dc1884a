"""One scan of d2l Markdown: what each prose line marks, and which lines are code.

The marks d2l prose writes — roles (``:numref:``, ``:ref:``, ``:eqref:``, ``:cite:``…),
labels (``:label:``, ``:eqlabel:``, ``$$ … $$ :eqlabel:``), tab marks, images and headings —
are defined here once, and found once per text with their 1-based source lines. Lines
inside code (fenced examples, indented code) hold none: which lines those are comes from
markdown-it's block parse, the parser's own (:mod:`polybook.source.parse` builds a page's
index from its tokens; :func:`scan` parses a text alone, a notebook's Markdown cell).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

# A role's target is between backticks, one each side (some d2l pages write two).
ROLE = re.compile(r":(numref|ref|eqref|cite|citet|citep):(``?)([^`]+)\2")
CITE_ROLES = ("cite", "citet", "citep")
# A role, or a code span (whose roles stay as written): the first that starts, roles first.
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
BEGIN_TAB = re.compile(r"^:begin_tab:(\s*)`([^`]*)`$")
END_TAB = ":end_tab:"
FENCE_MARKS = ("```", "~~~")

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
class Index:
    """What a text's prose marks, with the lines of its code.

    ``lines`` are the prose lines outside code, in order; ``literal`` the lines inside
    code (a fence's own lines too) and ``fences`` the fenced blocks.
    """

    lines: tuple[Line, ...] = ()
    literal: frozenset[int] = frozenset()
    fences: tuple[Fence, ...] = ()
    roles: tuple[Role, ...] = ()
    labels: tuple[Label, ...] = ()
    images: tuple[Image, ...] = ()
    headings: tuple[Heading, ...] = ()
    tab_marks: tuple[TabMark, ...] = ()

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


def literal_lines(tokens: Iterable[Token], first: int = 1) -> frozenset[int]:
    """Lines (numbered from ``first``) inside fences and indented code."""
    return frozenset(
        number + first
        for token in tokens
        if token.type in ("fence", "code_block") and token.map
        for number in range(*token.map)
    )


def fences(tokens: Iterable[Token], first: int = 1) -> tuple[Fence, ...]:
    found: list[Fence] = []
    for token in tokens:
        if token.type == "fence" and token.map:
            start, end = token.map
            # markdown-it maps a closed fence to one line more than its content: the closer.
            closed = token.content.count("\n") == end - start - 2
            found.append(
                Fence(start + first, end - 1 + first, token.markup, token.info.strip(), closed)
            )
    return tuple(found)


def tab_marks(tokens: Iterable[Token], lines: Sequence[str]) -> tuple[TabMark, ...]:
    """``:begin_tab:`` and ``:end_tab:`` lines of paragraphs (``lines`` from line 1)."""
    marks: list[TabMark] = []
    for token in tokens:
        if token.type != "paragraph_open" or token.map is None:
            continue
        for number in range(*token.map):
            stripped = lines[number].strip()
            if begin := BEGIN_TAB.match(stripped):
                marks.append(TabMark(number + 1, begin.group(2), bool(begin.group(1))))
            elif stripped == END_TAB:
                marks.append(TabMark(number + 1, None))
    return tuple(marks)


def index_lines(
    lines: Iterable[Line],
    literal: frozenset[int],
    found_fences: tuple[Fence, ...] = (),
    marks: tuple[TabMark, ...] = (),
) -> Index:
    """The index of ``lines`` (numbered), those in ``literal`` being code."""
    prose: list[Line] = []
    roles: list[Role] = []
    labels: list[Label] = []
    images: list[Image] = []
    headings: list[Heading] = []
    for number, text in lines:
        if number in literal:
            continue
        prose.append((number, text))
        if ":" in text:
            if label := LABEL.match(text):
                labels.append(Label(number, label.group(1), label.group(2).strip()))
                continue
            if trailing := TRAILING_EQLABEL.match(text):
                labels.append(Label(number, "eqlabel", trailing.group("label").strip()))
            roles.extend(
                Role(number, m.group(1), m.group(3))
                for m in ROLE_OR_CODE.finditer(text)
                if not m.group(4)  # a code span's roles are as written
            )
        if "![" in text:
            images.extend(Image(number, m.group(2)) for m in IMAGE.finditer(text))
        if "#" in text and (heading := HEADING.match(text.strip())):
            headings.append(Heading(number, len(heading.group(1)), heading.group(2)))
    return Index(
        tuple(prose),
        literal,
        found_fences,
        tuple(roles),
        tuple(labels),
        tuple(images),
        tuple(headings),
        marks,
    )


def may_hold_code(text: str) -> bool:
    """Whether ``text`` may hold a fence or indented code (most prose cells do not)."""
    return any(mark in text for mark in FENCE_MARKS) or "    " in text or "\t" in text


def scan(text: str, first: int = 1) -> Index:
    """The index of a Markdown text whose first line is line ``first``."""
    lines = text.split("\n")
    numbered = list(enumerate(lines, start=first))
    if not may_hold_code(text):
        return index_lines(numbered, frozenset())
    tokens = _blocks.parse(text if text.endswith("\n") else text + "\n")
    return index_lines(numbered, literal_lines(tokens, first), fences(tokens, first))
