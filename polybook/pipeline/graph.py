"""The build graph, explicit: source -> library -> (environments ->) execution -> an output.

Each stage is a function ``stage(input, config, reporter) -> result`` in its own package;
:data:`TARGETS` says which stages a target runs and what it writes, and :func:`run_build`
runs them in order and decides what a failing stage stops. A build with errors never
replaces good outputs with worse ones: errors in the sources or the library stop it before
anything is executed or rendered; a page whose notebook failed keeps its last good output.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.library.stage import Library, build_library, library_of_pages, read_pages
from polybook.pipeline.request import TARGETS, BuildRequest
from polybook.source.stage import read_sources

if TYPE_CHECKING:  # the later stages are imported when a build reaches them
    from polybook.execution.kernels.zygote_pool import ZygotePool
    from polybook.execution.stage import Executed
    from polybook.render.sphinx_process import WarmSphinx
    from polybook.site.stage import SphinxKeeper

logger = logging.getLogger("polybook")


def _site(
    executed: Executed, config: BookConfig, reporter: Reporter, early: WarmSphinx | None
) -> None:
    from polybook.site.stage import build_site

    made = build_site(executed, config, reporter, early)
    logger.info("site written to %s", made.index)


def _pdf(
    executed: Executed, config: BookConfig, reporter: Reporter, early: WarmSphinx | None
) -> None:
    from polybook.pdf.stage import build_pdf

    for path in build_pdf(executed, config, reporter):
        logger.info("wrote %s", path.relative_to(config.root))


def _epub(
    executed: Executed, config: BookConfig, reporter: Reporter, early: WarmSphinx | None
) -> None:
    from polybook.epub.stage import build_epub

    for path in build_epub(executed, config, reporter):
        logger.info("wrote %s", path.relative_to(config.root))


def _notebooks(
    executed: Executed, config: BookConfig, reporter: Reporter, early: WarmSphinx | None
) -> None:
    from polybook.notebooks.stage import build_notebooks

    written = build_notebooks(executed, config, reporter)
    logger.info(
        "notebooks written to %s (%d, %d changed)",
        written.folder,
        written.notebooks,
        written.changed,
    )


def _slides(
    executed: Executed, config: BookConfig, reporter: Reporter, early: WarmSphinx | None
) -> None:
    from polybook.slides.stage import build_slides

    made = build_slides(executed, config, reporter)
    logger.info(
        "slides written to %s (%d decks, %d files changed)",
        made.folder,
        len(made.decks),
        made.changed,
    )


Output = Callable[["Executed", BookConfig, Reporter, "WarmSphinx | None"], None]
OUTPUTS: dict[str, Output] = {
    "html": _site,
    "pdf": _pdf,
    "epub": _epub,
    "notebooks": _notebooks,
    "slides": _slides,
}


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
    if not TARGETS[request.target].executes:  # the library alone needs no notebooks
        pages = read_pages(request.sources, config, reporter)
        if pages is None:
            return "source"
        return library_of_pages(pages, config, reporter) or "library"
    sources = read_sources(request.sources, config, reporter)
    if sources is None or reporter.errors:
        return "source"
    return build_library(sources, config, reporter) or "library"


def run_build(
    request: BuildRequest,
    config: BookConfig,
    reporter: Reporter,
    keeper: SphinxKeeper | None = None,
) -> BuildSummary:
    """Run the stages of ``request.target``; see the module's documentation. ``keeper``
    holds the site's Sphinx process between builds (``polybook serve``)."""
    early = None
    zygotes = None
    runs = TARGETS[request.target].executes and config.eval_notebook
    if runs and request.pages is None:  # a cold build's first zygotes start now
        from polybook.execution.kernels.head_start import head_start

        zygotes = head_start(config, request.tabs)
    if request.target == "html":  # Sphinx starts while the pages are prepared
        from polybook.site.stage import start_early

        early = keeper.take(config) if keeper is not None else start_early(config)
    try:
        return _run_stages(request, config, reporter, early, zygotes)
    finally:
        if zygotes is not None:  # ended by the executor that took them; else here
            zygotes.close()
        if keeper is not None and request.target == "html":
            keeper.keep(config, early)
        elif early is not None:
            early.stop()  # where the site did not need it


def _run_stages(
    request: BuildRequest,
    config: BookConfig,
    reporter: Reporter,
    early: WarmSphinx | None,
    zygotes: ZygotePool | None,
) -> BuildSummary:
    summary = BuildSummary()
    library = _library(request, config, reporter)
    if isinstance(library, str):
        summary.stopped = library
        return summary
    if request.target == "dist":
        from polybook.library.wheel import build_dist

        for path in build_dist(library, config, reporter):
            logger.info("wrote %s", path.relative_to(config.root))
        summary.stopped = "dist" if reporter.errors else ""
        return summary
    if not TARGETS[request.target].executes:
        return summary
    from polybook.execution.stage import execute

    executed = execute(library, config, reporter, zygotes)
    summary.ran, summary.cached = executed.report.ran, len(executed.report.cached)
    summary.failed = len(executed.report.failed)
    for edition in executed.report.editions.values():
        summary.editions[edition] = summary.editions.get(edition, 0) + 1
    if request.target in OUTPUTS:
        OUTPUTS[request.target](executed, config, reporter, early)
    return summary
