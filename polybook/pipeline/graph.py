"""The build graph, explicit: source -> library -> (environments ->) execution -> an output.

Each stage is a function ``stage(input, config, reporter) -> result`` in its own package;
:class:`~polybook.output.Output` says which stages an output needs and how it is built, and
:func:`run_build` runs them in order and decides what a failing stage stops. A build with
errors never replaces good outputs with worse ones: errors in the sources or the library
stop it before anything is executed or rendered; a page whose notebook failed keeps its
last good output.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.library.stage import Library, build_library, library_of_pages, read_pages
from polybook.output import Made, Run
from polybook.pipeline.request import BuildRequest
from polybook.source.stage import read_sources

if TYPE_CHECKING:  # the later stages are imported when a build reaches them
    from polybook.execution.stage import Executed

logger = logging.getLogger("polybook")


@dataclass
class BuildSummary:
    """What one build did, for the command line's report."""

    ran: list[tuple[str, str, float]] = field(default_factory=list)
    cached: int = 0
    failed: int = 0
    stopped: str = ""  # the stage that stopped the build, if one did
    editions: dict[str, int] = field(default_factory=dict)  # notebooks each edition lent

    def to_json(self) -> dict[str, object]:
        return {
            "ran": self.ran,
            "cached": self.cached,
            "failed": self.failed,
            "stopped": self.stopped,
            "editions": self.editions,
        }


def _library(request: BuildRequest, config: BookConfig, reporter: Reporter) -> Library | str:
    """The library stage's result, or the name of the stage that stopped the build."""
    if not request.output.executes:  # the library alone needs no notebooks
        pages = read_pages(request.sources, config.book, config.build, reporter)
        if pages is None:
            return "source"
        return library_of_pages(pages, config.book, config.library, reporter) or "library"
    sources = read_sources(request.sources, config.book, config.build, reporter)
    if sources is None or reporter.errors:
        return "source"
    return build_library(sources, config.book, config.library, reporter) or "library"


def run_build(
    request: BuildRequest,
    config: BookConfig,
    reporter: Reporter,
    keeper: object = None,
) -> BuildSummary:
    """Run the stages of ``request.output`` and build it; see the module's documentation.
    ``keeper``: what ``polybook serve`` holds between builds for the output (the site's
    Sphinx process), given to its :meth:`~polybook.output.Output.begin`."""
    zygotes = None
    runs = request.output.executes and config.build.eval_notebook
    if runs and request.pages is None:  # a cold build's first zygotes start now
        from polybook.execution.kernels.head_start import head_start
        from polybook.pipeline.execution import BookEnvironments, execution

        zygotes = head_start(execution(config), BookEnvironments(config), request.tabs)
    output = request.output.begin(config, keeper)  # the site starts Sphinx now
    try:
        return _run_stages(request, config, reporter, output)
    finally:
        if zygotes is not None:  # ended by the executor that took them; else here
            from polybook.execution.kernels.head_start import forget

            forget(config.layout)
            zygotes.close()
        output.close()


def _run_stages(
    request: BuildRequest,
    config: BookConfig,
    reporter: Reporter,
    output: Run,
) -> BuildSummary:
    summary = BuildSummary()
    library = _library(request, config, reporter)
    if isinstance(library, str):
        summary.stopped = library
        return summary
    made = Made(library, outputs=request.outputs)
    if request.output.executes:
        made = Made(library, _execute(library, config, reporter, summary), request.outputs)
    if not output(made, config, reporter):  # its errors stop the build
        summary.stopped = request.target
    return summary


def _execute(
    library: Library,
    config: BookConfig,
    reporter: Reporter,
    summary: BuildSummary,
) -> Executed:
    """The execute stage's result; what it did goes into ``summary``."""
    from polybook.execution.stage import execute
    from polybook.pipeline.execution import BookEnvironments, execution

    executed = execute(library, execution(config), BookEnvironments(config), reporter)
    summary.ran, summary.cached = executed.report.ran, len(executed.report.cached)
    summary.failed = len(executed.report.failed)
    for edition in executed.report.editions.values():
        summary.editions[edition] = summary.editions.get(edition, 0) + 1
    return executed
