"""What each label of the book names and the number Sphinx gives it, worked out from the
sources alone, for the outputs that Sphinx does not make (students' notebooks, slides).

Sections are numbered as the site numbers them: pages listed by a ``:numbered:`` toc (and the
tocs below it) count from 1 in toc order, a page's ``##`` headings below its number; a page
whose title is unnumbered (a ``_quarto.yml`` part's page) counts none, and the pages its
tocs list count on at its level, as the chapters of a part do.
Labelled figures, tables and equations count per section, numbered to two levels (Sphinx's
``numfig_secnum_depth``): "Fig. 3.2.1", "Table 3.2.1", "(3.2.1)". Pages no numbered toc
lists count their labelled figures across the book, unnumbered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from polybook.diagnostics import Reporter
from polybook.memo import HeldMemo
from polybook.source.book import ParsedBook, toc_targets
from polybook.source.model import Document, Toc
from polybook.source.scan import CAPTION, HEADING, LABEL, TRAILING_EQLABEL

SECNUM_DEPTH = 2  # numfig_secnum_depth
NUMBERED: HeldMemo[dict[str, Target]] = HeldMemo(8)  # by the pages' parses, in book order
# What each page's lines say to the numbering (headings, labelled things), by its parse.
SCANNED: HeldMemo[tuple[tuple[object, ...], ...]] = HeldMemo(4096)


@dataclass(frozen=True)
class Target:
    """What a label names: a section, a figure, a table or an equation."""

    kind: str
    number: str  # "3.2.1"; "" where Sphinx gives none
    title: str  # a section's title, a figure's or a table's caption
    page: str  # the docname of its page
    anchor: str  # its id in the site's page


def anchor_of(label: str, kind: str) -> str:
    """The id the site gives ``label`` (docutils' ``make_id``)."""
    ident = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    return f"equation-{ident}" if kind == "equation" else ident


@dataclass
class _Counters:
    """Figure, table and equation counters per section prefix, across the book."""

    counts: dict[tuple[str, tuple[int, ...]], int] = field(default_factory=dict)

    def next(self, kind: str, section: tuple[int, ...]) -> str:
        prefix = section[:SECNUM_DEPTH]
        count = self.counts.get((kind, prefix), 0) + 1
        self.counts[(kind, prefix)] = count
        return ".".join(str(n) for n in (*prefix, count))


def page_numbers(book: ParsedBook) -> dict[str, tuple[int, ...]]:
    """Each numbered page's section number, from the root's tocs down."""
    docs = {doc.path: doc for doc in book.documents}
    numbers: dict[str, tuple[int, ...]] = {}

    def walk(doc: Document, prefix: tuple[int, ...], numbered: bool, count: list[int]) -> None:
        for block in doc.blocks:
            if not isinstance(block, Toc):
                continue
            counted = numbered or any(key == "numbered" for key, _ in block.options)
            for target, _ in toc_targets(Document(doc.path, (block,))):
                child = docs.get(target)
                if child is None or target in numbers:
                    continue
                if counted and child.title_unnumbered:  # a part's page: its pages count on
                    walk(child, prefix, counted, count)
                    continue
                if counted:
                    count[0] += 1
                    numbers[target] = (*prefix, count[0])
                walk(child, numbers.get(target, prefix), counted, [0])

    root = docs.get("index.md")
    if root is not None:
        walk(root, (), False, [0])
    return numbers


def _caption(text: str) -> str:
    return text[2 : text.rfind("](")] if text.startswith("![") and "](" in text else ""


class _Page:
    """One page's scan: the section a line is in, and what a label after it names."""

    def __init__(
        self,
        page: str,
        own: tuple[int, ...] | None,
        counters: _Counters,
        unnumbered: tuple[int, ...] = (),
    ):
        self.page = page
        self.unnumbered = unnumbered  # lines of headings marked {.unnumbered}
        self.skip = 0  # the depth of the unnumbered heading the lines are below, if any
        self.own = own
        self.counters = counters
        self.section: tuple[int, ...] = own or ()
        self.levels: list[int] = []  # counters of the headings below the page's title
        self.last: tuple[str, str] = ("", "")  # (kind, title) that a label would name
        self.image = ""  # an image's text while its caption spans lines

    def heading(self, depth: int, title: str, unnumbered: bool = False) -> None:
        if self.skip and depth > self.skip:
            pass  # below an unnumbered heading: unnumbered, counting nothing
        elif unnumbered:
            self.skip = depth
        elif self.own is not None:
            self.skip = 0
            if depth == 1:
                self.levels = []
            else:
                k = depth - 2
                self.levels = (self.levels + [0] * (k + 1))[: k + 1]
                self.levels[k] += 1
            self.section = (*self.own, *self.levels)
        self.last = ("section", title)

    def target(self, kind: str, title: str, label: str) -> Target:
        if kind == "section":
            numbered = self.own is not None and not self.skip
            number = ".".join(map(str, self.section)) if numbered else ""
        else:
            number = self.counters.next(kind, self.section)
        return Target(kind, number, title, self.page, anchor_of(label, kind))

    def line(self, stripped: str, number: int = 0) -> tuple[str, Target] | None:
        """Read one line (at ``number``); the label on it and its target, if any."""
        if trailing := TRAILING_EQLABEL.match(stripped):
            name = trailing.group("label")
            return name, self.target("equation", "", name)
        label = LABEL.match(stripped)
        if self.image or (stripped.startswith("![") and not label):
            self.image = f"{self.image} {stripped}".strip()
            if re.search(r"\]\([^)]*\)$", self.image):
                self.last, self.image = ("figure", _caption(self.image)), ""
            return None
        if heading := HEADING.match(stripped):
            unnumbered = number in self.unnumbered
            self.heading(len(heading.group(1)), heading.group(2), unnumbered)
        elif label and label.group(1) == "eqlabel":
            return label.group(2), self.target("equation", "", label.group(2))
        elif label and self.last[0]:
            found = self.target(*self.last, label.group(2))
            self.last = ("", "")
            return label.group(2), found
        elif caption := CAPTION.match(stripped):
            self.last = ("table", caption.group(1))
        elif stripped and not stripped.startswith(("|", ":width:")):
            self.last = ("", "")
        return None


def numbering(book: ParsedBook) -> dict[str, Target]:
    """Every label of the book, with what it names and its number; once per book as parsed
    (each page's parse is kept while its text is the same: ``polybook serve``'s rebuilds
    number the book again only when a page changed). Shared: callers only read it."""
    return NUMBERED.get(tuple(book.documents), "", lambda _: _numbering(book), Reporter(quiet=True))


class _Recording(_Page):
    """A page's scan that numbers nothing: it notes the headings and the labelled things
    in order, for :func:`_numbering` to number with the book's counters."""

    def __init__(self, page: str, unnumbered: tuple[int, ...]) -> None:
        super().__init__(page, None, _Counters(), unnumbered)
        self.events: list[tuple[object, ...]] = []

    def heading(self, depth: int, title: str, unnumbered: bool = False) -> None:
        self.events.append(("heading", depth, title, unnumbered))
        super().heading(depth, title, unnumbered)

    def target(self, kind: str, title: str, label: str) -> Target:
        self.events.append(("target", kind, title, label))
        return Target(kind, "", title, self.page, "")


def _events(doc: Document) -> tuple[tuple[object, ...], ...]:
    """What ``doc``'s lines say to the numbering; scanned once per parse of the page."""

    def scan(_: Reporter) -> tuple[tuple[object, ...], ...]:
        recording = _Recording(doc.path.removesuffix(".md"), doc.unnumbered)
        for number, text in doc.index.lines():
            recording.line(text.strip(), number)
        return tuple(recording.events)

    return SCANNED.get((doc,), "", scan, Reporter(quiet=True))


def _numbering(book: ParsedBook) -> dict[str, Target]:
    numbers = page_numbers(book)
    counters = _Counters()
    found: dict[str, Target] = {}
    for doc in book.documents:
        own = numbers.get(doc.path)
        page = _Page(doc.path.removesuffix(".md"), own, counters, doc.unnumbered)
        for event in _events(doc):
            if event[0] == "heading":
                page.heading(*event[1:])  # type: ignore[arg-type]
            else:
                kind, title, label = (str(part) for part in event[1:])
                found.setdefault(label, page.target(kind, title, label))
    return found
