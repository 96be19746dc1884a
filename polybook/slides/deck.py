"""One section's deck for one framework, from its slide marks and its executed code.

As d2lbook makes slides: the section's title opens the deck; a ``[`` mark starts a new slide
and a ``(`` mark adds to the current one; the section's code cells follow the marks they
come after, with their outputs, consecutive cells without outputs merged into one;
``#@save`` lines are dropped. Marks of one paragraph read as one paragraph, a sentence's
first letter capitalized and its trailing comma or period dropped. A section without marks
gets no deck. A page with a ``<!-- slides -->`` section gets its deck from there
(:mod:`polybook.slides.section`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nbformat import NotebookNode

from polybook.source.model import CodeCell, Document, Prose, TabProse
from polybook.source.readable import Readable
from polybook.source.slide_marks import SlideMark

SAVE_LINE = re.compile(r"^\s*#\s*@save\s*$")
SAVE_SUFFIX = re.compile(r"\s*#\s*@save\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
TRAILING = re.compile(r"[\s,.;:]+$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


@dataclass
class DeckCell:
    """A cell of the deck: Markdown, or code with its outputs."""

    kind: str  # "markdown" or "code"
    source: str
    new_slide: bool = False  # starts a slide
    outputs: list[NotebookNode] = field(default_factory=list)
    fragment: bool = False  # shown after a pause, within its slide


@dataclass(frozen=True)
class Deck:
    """One section's slides for one framework: cells in order, each new slide marked."""

    page: str  # the page, ``chap/x.md``
    framework: str
    title: str
    cells: tuple[DeckCell, ...]

    @property
    def slides(self) -> list[list[DeckCell]]:
        """The cells grouped by slide."""
        grouped: list[list[DeckCell]] = []
        for cell in self.cells:
            if cell.new_slide or not grouped:
                grouped.append([])
            grouped[-1].append(cell)
        return grouped


def page_title(doc: Document) -> tuple[str, int]:
    """The page's title and its line (the first ``#`` heading of its shared prose)."""
    for block in doc.blocks:
        if isinstance(block, Prose):
            for offset, line in enumerate(block.text.split("\n")):
                if line.startswith("# "):
                    return line[2:].strip(), block.line + offset
    return doc.docname.rsplit("/", 1)[-1], 0


def polish(text: str) -> str:
    """A slide's paragraph: its first letter capitalized, no trailing comma or period (a
    display equation's own included), as d2lbook writes them."""
    text = text.strip()
    if text.endswith("$$"):
        text = TRAILING.sub("", text[:-2]) + "$$"
    elif not text.endswith(("...", "!", "?")):
        text = TRAILING.sub("", text)
    first = next((k for k, c in enumerate(text) if c.isalpha() or c in "$`\\["), None)
    if first is not None and text[first].islower():
        text = text[:first] + text[first].upper() + text[first + 1 :]
    return text


def code_source(source: str) -> str:
    """A code cell as a slide shows it: ``#@save`` marks and lines dropped."""
    lines = [SAVE_SUFFIX.sub("", line) for line in source.split("\n") if not SAVE_LINE.match(line)]
    return "\n".join(lines).strip("\n")


class _Builder:
    """The deck's cells, as the page's blocks come: marks of one paragraph gather into one
    paragraph, which is polished when it ends."""

    def __init__(self, title: str, title_line: int, refs: Readable):
        self.refs = refs
        self.title_line = title_line
        self.cells = [DeckCell("markdown", f"# {title}", new_slide=True)]
        self.last: tuple[int, int] | None = None  # (block, paragraph) of the last mark taken
        self.pieces: list[str] = []  # the marks of the paragraph being gathered
        self.item = ""  # its list marker, if it is a list item

    def _add(self, text: str, item: str = "") -> None:
        """Append a paragraph (or a list item) to the current Markdown cell."""
        current = self.cells[-1]
        in_list = item and LIST_ITEM.match(current.source.split("\n")[-1])
        current.source += ("\n" if in_list else "\n\n") + item + text

    def flush(self) -> None:
        if self.pieces:
            self._add(polish("\n".join(self.pieces)), self.item)
        self.pieces, self.item = [], ""

    def mark(self, mark: SlideMark, block: Prose | TabProse, index: int) -> None:
        if mark.line == self.title_line:
            return  # a mark in the title: the deck opens with it anyway
        line = block.text.split("\n")[mark.line - block.line]
        heading = HEADING.match(line.strip())
        text = self.refs.text(mark.text.strip())
        place = (index, mark.paragraph)
        if mark.new_slide or self.cells[-1].kind != "markdown":
            self.flush()
            self.cells.append(DeckCell("markdown", "", new_slide=mark.new_slide))
        elif place != self.last or mark.item:
            self.flush()
        self.last = place
        if heading and heading.group(2).strip() == mark.text.strip():
            self._add(f"{heading.group(1)} {text}")  # a marked heading stays a heading
            return
        self.pieces.append(text)
        self.item = self.item or mark.item

    def code(self, cell: NotebookNode) -> None:
        tags = set(cell.metadata.get("tags", []))
        if "remove-cell" in tags:
            return
        source = "" if "remove-input" in tags else code_source(cell.source)
        outputs = [] if "remove-output" in tags else list(cell.get("outputs", []))
        if not source and not outputs:
            return
        self.flush()
        before = self.cells[-1]
        if before.kind == "code" and not before.outputs:  # merged with the one before
            source = f"{before.source}\n\n{source}".strip("\n")
            self.cells.pop()
        self.cells.append(DeckCell("code", source, outputs=outputs))
        self.last = None

    def done(self) -> tuple[DeckCell, ...]:
        self.flush()
        for cell in self.cells:
            cell.source = cell.source.strip("\n")
        return tuple(self.cells)


def make_deck(doc: Document, notebook: NotebookNode, framework: str, refs: Readable) -> Deck | None:
    """The deck of ``doc`` for ``framework`` from its executed ``notebook``; None when the
    page marks nothing for this framework's slides."""
    title, title_line = page_title(doc)
    builder = _Builder(title, title_line, refs)
    cells = {cell.id: cell for cell in notebook.cells}
    marked = False
    for index, block in enumerate(doc.blocks):
        if isinstance(block, (Prose, TabProse)):
            if isinstance(block, TabProse) and framework not in block.frameworks:
                continue
            for mark in block.marks:
                marked = marked or mark.line != title_line
                builder.mark(mark, block, index)
        elif isinstance(block, CodeCell) and framework in block.frameworks:
            cell = cells.get(doc.cell_id(index))
            if cell is not None and cell.cell_type == "code":
                builder.code(cell)
    if not marked:
        return None
    return Deck(doc.path, framework, title, builder.done())
