"""The build graph, explicit: parse -> split -> library -> execute -> render.

Each stage has a pure entry point in its own package; this module runs them in order,
writes the library, and decides what a failing stage stops.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.alias_rewrite import rewrite_notebooks
from polybook.config import BookConfig
from polybook.diagnostics import PolybookError, Reporter
from polybook.fsutil import remove_stale_temps, write_atomic
from polybook.library import SavedBlock, check_parity, extract_libraries, library_text
from polybook.library_aliases import with_aliases
from polybook.library_pages import PageSaves, libraries_from_pages, read_saves
from polybook.nb import Notebooks
from polybook.source.book import Book, BookInvalid, load_book
from polybook.source.split import split_book

if TYPE_CHECKING:  # the later stages are imported when a build reaches them
    from nbformat import NotebookNode

    from polybook.site.sphinx_process import EarlySphinx

logger = logging.getLogger("polybook")


def build_library(
    config: BookConfig, notebooks: Notebooks, reporter: Reporter
) -> dict[str, list[SavedBlock]]:
    """Write each framework's library atomically; on any error keep the last good file."""
    return write_libraries(config, extract_libraries(notebooks, reporter), reporter)


def write_libraries(
    config: BookConfig, libraries: dict[str, list[SavedBlock]], reporter: Reporter
) -> dict[str, list[SavedBlock]]:
    """Write the libraries extracted without errors (the others keep their last good file),
    with the aliases the config adds; returns what was written."""
    libraries = with_aliases(config, libraries, reporter)
    for fw, blocks in libraries.items():
        target = config.root / config.library_for(fw).lib_file
        remove_stale_temps(target.parent)
        text = library_text(blocks, config.framework(fw).display_name)
        if write_atomic(target, text):
            logger.info("wrote %s (%d blocks)", target.relative_to(config.root), len(blocks))
    check_parity(libraries, config.framework_specific, reporter)
    return libraries


def build_html(
    config: BookConfig,
    book: Book,
    tabs: tuple[str, ...],
    executed: dict[tuple[str, str], NotebookNode],
    reporter: Reporter,
    stale: frozenset[str] = frozenset(),
    libraries: dict[str, list[SavedBlock]] | None = None,
    early: EarlySphinx | None = None,
) -> Path:
    """Render every page and build the site; ``stale`` pages keep their last good HTML.
    ``early``: a Sphinx process started for it (see ``site.sphinx_build.start_early``).

    Outputs are cleaned first (JavaScript dropped, the machine's paths replaced): the pages
    and the notebooks offered for download show the same.
    """
    from polybook.execution import envs
    from polybook.site.extras import SiteExtras
    from polybook.site.outputs import clean_notebook, path_roots
    from polybook.site.render import render_page
    from polybook.site.sphinx_build import build_site

    pages = []
    cleaned: dict[tuple[str, str], NotebookNode] = {}
    gpus = envs.host_gpus()
    roots = path_roots(config)
    for doc in book.documents:
        nbs = {
            fw: clean_notebook(executed[(doc.path, fw)], roots, doc.path, fw, reporter)
            for fw in tabs
            if (doc.path, fw) in executed
        }
        cleaned.update(((doc.path, fw), nb) for fw, nb in nbs.items())
        pages.append(render_page(doc, nbs, tabs, reporter, gpus))
    extras = SiteExtras(cleaned, libraries or {}, tabs)
    return build_site(config, pages, reporter, stale, extras, early)


@dataclass
class BuildSummary:
    """What one build did, for the command line's report."""

    ran: list[tuple[str, str, float]] = field(default_factory=list)
    cached: int = 0
    failed: int = 0
    stopped: str = ""  # the stage that stopped the build, if one did

    def to_json(self) -> dict[str, object]:
        return {
            "ran": self.ran,
            "cached": self.cached,
            "failed": self.failed,
            "stopped": self.stopped,
        }


class _Stopped(Exception):
    def __init__(self, stage: str) -> None:
        super().__init__(stage)
        self.stage = stage


def _sources(
    config: BookConfig, target: str, tabs: tuple[str, ...], reporter: Reporter
) -> tuple[Book, Notebooks, dict[str, list[SavedBlock]]]:
    """Parse, split, and write the library; raises :class:`_Stopped` where errors stop."""
    # The library alone needs no notebooks: it reads the cells they would hold.
    library_only = target in ("lib", "dist")
    saves: list[PageSaves] = []
    try:
        if library_only:
            book, saves = read_saves(config, tabs, reporter)
        else:
            book = load_book(config, reporter)
    except BookInvalid as err:
        raise _Stopped("source") from err
    notebooks = {} if library_only else split_book(book, tabs, reporter)
    if reporter.errors:
        raise _Stopped("source")
    if library_only:
        found = libraries_from_pages(saves, tabs, reporter)
    else:
        found = extract_libraries(notebooks, reporter)
    libraries = write_libraries(config, found, reporter)
    if reporter.errors:
        raise _Stopped("library")
    # What readers see and run: the library keeps the code as saved (it defines the aliases).
    return book, rewrite_notebooks(config, notebooks, reporter), libraries


def run_build(
    config: BookConfig,
    target: str,
    tabs: tuple[str, ...],
    pages: set[str] | None,
    reporter: Reporter,
) -> BuildSummary:
    """Run the stages up to ``target`` (lib, dist, eval, notebooks, html or pdf).

    A build with errors never replaces good outputs with worse ones: errors in the sources
    or the library stop it before anything is executed or rendered (the last good site
    stays as it is); a page whose notebook failed keeps its last good HTML.
    """
    early = None
    if target == "html":  # Sphinx starts while the pages are prepared
        from polybook.site.sphinx_build import start_early

        early = start_early(config)
    try:
        return _run_stages(config, target, tabs, pages, reporter, early)
    finally:
        if early is not None:
            early.stop()  # where the site did not need it


def _run_stages(
    config: BookConfig,
    target: str,
    tabs: tuple[str, ...],
    pages: set[str] | None,
    reporter: Reporter,
    early: EarlySphinx | None,
) -> BuildSummary:
    summary = BuildSummary()
    try:
        book, notebooks, libraries = _sources(config, target, tabs, reporter)
    except _Stopped as stop:
        summary.stopped = stop.stage
        return summary
    if target == "lib":
        return summary
    if target == "dist":
        from polybook.dist import build_dist

        try:
            for path in build_dist(config, reporter):
                logger.info("wrote %s", path.relative_to(config.root))
        except PolybookError as err:
            reporter.error(err)
            summary.stopped = "dist"
        return summary
    if config.eval_notebook:
        from polybook.execution.stage import build_eval

        report = build_eval(config, notebooks, libraries, reporter, pages)
        executed = report.executed
        summary.ran, summary.cached = report.ran, len(report.cached)
        summary.failed = len(report.failed)
        failed_pages = frozenset(p.removesuffix(".md") for p, _ in report.failed)
        logger.info(
            "executed %d notebooks, %d from the cache, %d failed",
            len(report.ran),
            len(report.cached),
            len(report.failed),
        )
    else:
        executed = {(p, fw): nb for fw, nbs in notebooks.items() for p, nb in nbs}
        failed_pages = frozenset()
    if target == "html":
        out = build_html(config, book, tabs, executed, reporter, failed_pages, libraries, early)
        logger.info("site written to %s", out / "index.html")
    if target == "pdf":
        from polybook.pdf.stage import build_pdf

        failed = report.failed if config.eval_notebook else []
        for path in build_pdf(config, book, tabs, executed, reporter, failed, libraries):
            logger.info("wrote %s", path.relative_to(config.root))
    if target == "notebooks":
        from polybook.notebooks import build_notebooks

        failed = report.failed if config.eval_notebook else []
        written = build_notebooks(config, executed, tabs, reporter, failed)
        logger.info(
            "notebooks written to %s (%d, %d changed)",
            written.folder,
            written.notebooks,
            written.changed,
        )
    return summary
