"""The source stage's model: a page's blocks (prose, tab prose, code cells, a toc) as the
parser finds them, and what a build asks the stage to read."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from polybook.diagnostics import Diagnostic
from polybook.source.scan import EMPTY, Index
from polybook.source.slide_marks import SlideMark

# What nbformat allows as a cell id; ``b<n>`` is what polybook names other blocks.
NOTEBOOK_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
GENERATED_ID = re.compile(r"^b[0-9]+$")


@dataclass(frozen=True)
class Prose:
    """Markdown shared by every framework; ``line`` is the 1-based line of its first line.

    ``text`` is what the book shows: slide marks are read out of it into ``marks``.
    """

    text: str
    line: int
    marks: tuple[SlideMark, ...] = ()


@dataclass(frozen=True)
class TabProse:
    """Prose between ``:begin_tab:`` and ``:end_tab:`` for some frameworks."""

    frameworks: tuple[str, ...]
    text: str
    line: int
    marks: tuple[SlideMark, ...] = ()


@dataclass(frozen=True)
class CodeCell:
    """A ``{.python .input}`` cell; ``source`` has the ``%%tab`` line removed; ``name`` is
    the id its info string gives it (``{.python .input #name}``), shared by the variants of
    one cell for several frameworks."""

    frameworks: tuple[str, ...]
    source: str
    line: int
    name: str | None = None


@dataclass(frozen=True)
class Toc:
    """A ```` ```toc ```` block: options and entries as written.

    ``entry_lines[k]`` is the 1-based source line of ``entries[k]``.
    """

    options: tuple[tuple[str, str], ...]
    entries: tuple[str, ...]
    line: int
    entry_lines: tuple[int, ...]


Block = Prose | TabProse | CodeCell | Toc


@dataclass(frozen=True)
class Document:
    """One parsed source page; ``path`` is relative to the book root, POSIX style.

    ``warnings`` are what parsing found wrong but could read past (a tab left open);
    ``index`` what its prose blocks mark (roles, labels, images, headings), by source line;
    ``slides`` what follows its ``<!-- slides -->`` comment (at ``slides_line``, 1-based),
    which is not the page's text; ``unnumbered``: the 1-based lines of its headings marked
    ``{.unnumbered}`` (the mark left off their text).
    """

    path: str
    blocks: tuple[Block, ...]
    warnings: tuple[Diagnostic, ...] = ()
    dropped: tuple[str, ...] = ()  # frameworks its blocks name that the book does not build
    index: Index = EMPTY
    slides: str = ""
    slides_line: int = 0
    unnumbered: tuple[int, ...] = ()

    @property
    def docname(self) -> str:
        return self.path.removesuffix(".md")

    @property
    def title_line(self) -> int:
        """The line of its title (its first ``#`` heading); 0 where it has none."""
        return next((h.line for h in self.index.headings if h.depth == 1), 0)

    @property
    def title_unnumbered(self) -> bool:
        """Whether its title takes no number (nor counts one in a numbered toc)."""
        return self.title_line in self.unnumbered

    def cell_id(self, index: int) -> str:
        """Stable id of block ``index``, shared by the notebooks of all frameworks: the
        cell's own name where it has one that no other cell of a framework of its holds and
        that a notebook may carry, else ``b<index>``."""
        return self._names.get(index, f"b{index}")

    @cached_property
    def tocs(self) -> tuple[Toc, ...]:
        """Its toc blocks, in order (found once per parse: a served book's pages are looked
        through at every build)."""
        return tuple(block for block in self.blocks if isinstance(block, Toc))

    @cached_property
    def _names(self) -> dict[int, str]:
        names: dict[int, str] = {}
        taken: set[tuple[str, str]] = set()  # (name, framework)
        for index, block in enumerate(self.blocks):
            if not isinstance(block, CodeCell) or block.name is None:
                continue
            name = block.name
            keys = {(name, fw) for fw in block.frameworks}
            if NOTEBOOK_ID.match(name) and not GENERATED_ID.match(name) and not keys & taken:
                names[index] = name
                taken |= keys
        return names


@dataclass(frozen=True)
class SourceRequest:
    """What a build reads: the frameworks, and the pages to execute (None: every page)."""

    tabs: tuple[str, ...]
    pages: frozenset[str] | None = None
