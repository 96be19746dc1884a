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


@dataclass(frozen=True)
class Made:
    """What the stages made for an output: the library, and, for an output that executes,
    the executed notebooks."""

    library: Library
    run: Executed | None = None

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

    def begin(self, config: BookConfig, keeper: object = None) -> Run:
        """This output's build, begun: close it when the build ends."""
        if self.start is not None:
            return self.start(config, keeper)
        return _Plain(self.build)


def by_name(outputs: tuple[Output, ...]) -> dict[str, Output]:
    """``outputs`` by their names."""
    return {output.name: output for output in outputs}
