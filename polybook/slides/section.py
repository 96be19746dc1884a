"""A deck from a page's ``<!-- slides -->`` section (the 2026 d2l dialect).

The section is Pandoc Markdown: ``::: {.slide title="…"}`` starts a slide (``.cover`` and
``.divider`` too), other fenced divs (``.cols``, ``.col``, ``.d2l-note``, …) keep their
classes as ``pb-`` ones where they hold text alone, ``only="pytorch"`` keeps a div for those
frameworks, a ``. . .`` line pauses (what follows is a fragment), ``[text]{.kicker}`` is a
span, and a line ``@cell-id`` stands for that cell's code and outputs in the deck's
framework (``@cell-id@pytorch``: in that framework's deck only; ``@!cell-id``: outputs
only).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.slides.deck import Deck, DeckCell, code_source, make_deck, page_title
from polybook.source.model import Document
from polybook.source.pandoc_attrs import attributes
from polybook.source.readable import Readable

DIV_OPEN = re.compile(r"^(:{3,})\s*(?:\{([^}]*)\}|([A-Za-z][\w-]*))\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
PAUSE = re.compile(r"^\.\s\.\s\.\s*$")
PLACEHOLDER = re.compile(r"^@(!?)([A-Za-z][\w-]*)(?:@([\w-]+))?\s*$")
SPAN = re.compile(r"\[([^\]\n]+)\]\{\s*\.([\w-]+)[^}]*\}")
SLIDE_CLASSES = ("slide", "cover", "divider")


@dataclass
class _Div:
    classes: tuple[str, ...]
    shown: bool  # ``only=`` holds this deck's framework (or there is none)
    wrapped: bool  # written as an HTML div around its text


def _plain(lines: list[str], start: int) -> bool:
    """Whether the div opened at ``lines[start]`` holds text alone (no cell, no pause)."""
    depth = 0
    for line in lines[start:]:
        if DIV_OPEN.match(line):
            depth += 1
        elif DIV_CLOSE.match(line):
            depth -= 1
            if depth == 0:
                return True
        elif PLACEHOLDER.match(line.strip()) or PAUSE.match(line.strip()):
            return False
    return True


class _Builder:
    def __init__(self, title: str, notebook: NotebookNode, framework: str, refs: Readable):
        self.cells = [DeckCell("markdown", f"# {title}", new_slide=True)]
        self.by_id = {cell.id: cell for cell in notebook.cells if cell.cell_type == "code"}
        self.framework = framework
        self.refs = refs
        self.pending_slide = False
        self.pending_fragment = False

    def text(self, line: str) -> None:
        current = self.cells[-1]
        if self.pending_slide or self.pending_fragment or current.kind != "markdown":
            if not line.strip():
                return  # blank lines start nothing
            current = DeckCell("markdown", "", new_slide=self.pending_slide)
            current.fragment = self.pending_fragment and not self.pending_slide
            self.cells.append(current)
            self.pending_slide = self.pending_fragment = False
        current.source += "\n" + SPAN.sub(_span, line)

    def slide(self, title: str) -> None:
        self.pending_slide = True
        if title:
            self.text(f"## {title}")

    def pause(self) -> None:
        self.pending_fragment = True

    def code(self, name: str, framework: str | None, outputs_only: bool) -> None:
        if framework is not None and framework != self.framework:
            return
        cell = self.by_id.get(name)
        if cell is None:
            return
        source = "" if outputs_only else code_source(cell.source)
        outputs = list(cell.get("outputs", []))
        if not source and not outputs:
            return
        made = DeckCell("code", source, new_slide=self.pending_slide, outputs=outputs)
        made.fragment = self.pending_fragment and not self.pending_slide
        self.pending_slide = self.pending_fragment = False
        self.cells.append(made)

    def done(self) -> tuple[DeckCell, ...]:
        kept: list[DeckCell] = []
        for cell in self.cells:
            if cell.kind == "markdown":
                cell.source = self.refs.text(cell.source.strip("\n"))
                if not cell.source.strip() and not cell.new_slide:
                    continue
            kept.append(cell)
        return tuple(kept)


def _span(match: re.Match[str]) -> str:
    return f'<span class="pb-{html.escape(match.group(2))}">{match.group(1)}</span>'


def page_deck(doc: Document, notebook: NotebookNode, framework: str, refs: Readable) -> Deck | None:
    """The deck of ``doc`` for ``framework``: from its slides section where it has one, else
    from its slide marks (:func:`~polybook.slides.deck.make_deck`)."""
    if not doc.slides:
        return make_deck(doc, notebook, framework, refs)
    return section_deck(doc, page_title(doc)[0], notebook, framework, refs)


def section_deck(
    doc: Document, title: str, notebook: NotebookNode, framework: str, refs: Readable
) -> Deck | None:
    """The deck of ``doc``'s slides section for ``framework``; None when it holds no slide."""
    lines = doc.slides.split("\n")
    builder = _Builder(title, notebook, framework, refs)
    stack: list[_Div] = []
    slides = 0
    for number, line in enumerate(lines):
        opened = DIV_OPEN.match(line)
        hidden = not all(div.shown for div in stack)
        if opened:
            classes, values = attributes(opened.group(2) or f".{opened.group(3)}")
            only = values.get("only", "").replace(",", " ").split()
            shown = not only or framework in only
            starts = any(c in SLIDE_CLASSES for c in classes)
            wrapped = not starts and bool(classes) and _plain(lines, number)
            stack.append(_Div(classes, shown, wrapped))
            if hidden or not shown:
                continue
            if starts:
                slides += 1
                builder.slide(values.get("title", ""))
            elif wrapped:
                names = " ".join(f"pb-{c}" for c in classes)
                builder.text(f'\n<div class="{html.escape(names)}">\n')
            continue
        if DIV_CLOSE.match(line) and stack:
            div = stack.pop()
            if div.wrapped and not hidden:
                builder.text("\n</div>\n")
            continue
        if hidden:
            continue
        stripped = line.strip()
        placeholder = PLACEHOLDER.match(stripped)
        if placeholder:
            outputs_only, name, variant = placeholder.groups()
            builder.code(name, variant, bool(outputs_only))
        elif PAUSE.match(stripped):
            builder.pause()
        else:
            builder.text(line)
    if not slides:
        return None
    return Deck(doc.path, framework, title, builder.done())
