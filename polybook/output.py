"""What an output is, as data: :class:`Output` says what ``polybook build <name>`` runs, what
it writes, what decides that it is up to date, and how it is built.

Each output package exports one (``polybook.site.output.OUTPUT``, ``polybook.pdf.output``…);
``polybook.pipeline.registry`` lists them, and the build graph, the check that nothing
changed and the command line's choices read that list. An output's module is light: it
imports its stage only when it builds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout

if TYPE_CHECKING:  # the stages' results, named only
    from polybook.execution.stage import Executed
    from polybook.library.stage import Library

Paths = Callable[[Layout, tuple[str, ...]], list[Path]]  # of a layout and the tabs built
# Per framework, an output's files built now, by the page each belongs to ("": the book's).
Built = Callable[[Layout, tuple[str, ...]], dict[str, dict[str, Path]]]


def nothing_built(layout: Layout, tabs: tuple[str, ...]) -> dict[str, dict[str, Path]]:
    return {}


@dataclass(frozen=True)
class Made:
    """What the stages made for an output: the library, and, for an output that executes,
    the executed notebooks; ``outputs``: the others this build knows (an output that holds
    them, the site, links those with a ``site`` link)."""

    library: Library
    run: Executed | None = None
    outputs: tuple[Output, ...] = ()

    @property
    def executed(self) -> Executed:
        if self.run is None:  # the output said it does not execute
            raise TypeError("this output was built without executing the notebooks")
        return self.run


Build = Callable[[Made, BookConfig, Reporter], bool]  # False: its errors stop the build


class Run(Protocol):
    """One build of an output, begun before the stages run (the site starts its Sphinx
    then), and closed after it, whatever happened."""

    def __call__(self, made: Made, config: BookConfig, reporter: Reporter) -> bool: ...

    def close(self) -> None: ...


def no_paths(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return []


def no_inputs(config: BookConfig) -> list[Path]:
    return []


@dataclass(frozen=True)
class SiteLink:
    """How the site holds and links an output built before it.

    ``folder``: its folder in the site (``_pdf``), where each file keeps its place in the
    output's own folder (``Layout.output_dir``). ``label``: what its links say, in the
    words of the message ``message`` of the catalog (``polybook.render.messages``;
    ``book_as``: "<label> of the book"). ``built``: per framework, the files built now, by
    the page each belongs to (linked from that page), or "" (the whole book's: linked from
    every page). ``shared``: files those share (the decks' assets), held beside them.
    """

    folder: str
    label: str
    built: Built
    message: str = "book_as"
    shared: Paths = no_paths

    def held(self, layout: Layout, tabs: tuple[str, ...], name: str) -> dict[str, Path]:
        """What the site holds of output ``name``: each file by its path in :attr:`folder`."""
        own = layout.output_dir(name)
        files = [p for pages in self.built(layout, tabs).values() for p in pages.values()]
        files += self.shared(layout, tabs) if files else []
        return {path.relative_to(own).as_posix(): path for path in files}


def nothing(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    return True


@dataclass(frozen=True)
class _Plain:
    """The run of an output that starts nothing ahead: its ``build``."""

    build: Build

    def __call__(self, made: Made, config: BookConfig, reporter: Reporter) -> bool:
        return self.build(made, config, reporter)

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class Output:
    """One target of ``polybook build``.

    ``writes``: the files or folders it makes for these tabs; a build whose outputs are
    missing runs again. ``executes``: it needs the executed notebooks (else only the sources
    and the library). ``build``: makes it from what the stages made. ``reads``: files beside
    the book's own that its build depends on (the site: the PDFs, epubs and decks it links);
    ``sphinx_reads``: the records of what its Sphinx runs read for the pages
    (``polybook.render.page_inputs``); ``all_requirement_sets``: it spells the pins of every
    device's requirement set (the students' notebooks' install cells), not only this host's.
    ``start``: given what ``polybook serve`` holds between builds (or None), begins the build
    before the stages run; by default the run is ``build``.

    What the render core and the site ask of it: ``per_framework``: its files hold one
    framework each (its pages show no tabs); ``site``: how the site holds and links it
    (None: it does not); ``holds_outputs``: it holds the outputs that have a ``site`` link
    (the site: their files decide that it is up to date, and ``Made.outputs`` names them).
    """

    name: str
    help: str  # one line, Markdown: README's table of commands shows it
    writes: Paths
    executes: bool = True
    build: Build = nothing
    reads: Callable[[BookConfig], list[Path]] = no_inputs
    sphinx_reads: Paths = no_paths
    all_requirement_sets: bool = False
    start: Callable[[BookConfig, object], Run] | None = None
    per_framework: bool = False
    site: SiteLink | None = None
    holds_outputs: bool = False

    def held(self, layout: Layout, tabs: tuple[str, ...]) -> dict[str, Path]:
        """What the site holds of this output (nothing: it has no ``site`` link)."""
        return self.site.held(layout, tabs, self.name) if self.site is not None else {}

    def begin(self, config: BookConfig, keeper: object = None) -> Run:
        """This output's build, begun: close it when the build ends."""
        if self.start is not None:
            return self.start(config, keeper)
        return _Plain(self.build)


def by_name(outputs: tuple[Output, ...]) -> dict[str, Output]:
    """``outputs`` by their names."""
    return {output.name: output for output in outputs}


def linked(outputs: tuple[Output, ...]) -> tuple[Output, ...]:
    """Those of ``outputs`` that the site holds and links."""
    return tuple(output for output in outputs if output.site is not None)
