"""The source stage's model: a page's blocks (prose, tab prose, code cells, a toc) as the
parser finds them, and what a build asks the stage to read."""

from __future__ import annotations

from dataclasses import dataclass

from polybook.diagnostics import Diagnostic
from polybook.source.scan import EMPTY, Index
from polybook.source.slide_marks import SlideMark


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
    """A ``{.python .input}`` cell; ``source`` has the ``%%tab`` line removed."""

    frameworks: tuple[str, ...]
    source: str
    line: int


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
    ``index`` what its prose blocks mark (roles, labels, images, headings), by source line.
    """

    path: str
    blocks: tuple[Block, ...]
    warnings: tuple[Diagnostic, ...] = ()
    dropped: tuple[str, ...] = ()  # frameworks its blocks name that the book does not build
    index: Index = EMPTY

    @property
    def docname(self) -> str:
        return self.path.removesuffix(".md")

    def cell_id(self, index: int) -> str:
        """Stable id of block ``index``, shared by the notebooks of all frameworks."""
        return f"b{index}"


@dataclass(frozen=True)
class SourceRequest:
    """What a build reads: the frameworks, and the pages to execute (None: every page)."""

    tabs: tuple[str, ...]
    pages: frozenset[str] | None = None
