"""The site as an output: ``_build/html``, its Sphinx started while the pages are prepared
(or kept warm between the builds of ``polybook serve``)."""

from __future__ import annotations

import logging
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.output import Made, Output, Run, linked
from polybook.site.book_inputs import site_inputs
from polybook.site.places import NAME, sphinx_inputs
from polybook.site.sections import SiteSections

if TYPE_CHECKING:
    from polybook.render.sphinx.process import EarlySphinx
    from polybook.site.stage import SphinxKeeper

logger = logging.getLogger("polybook")


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.html / "index.html"]


def _reads(config: BookConfig) -> list[Path]:
    """The book's static files and the record of `polybook compat` it shows (the outputs
    built before it that it holds: ``holds_outputs``)."""
    records = config.layout.compat_records  # `polybook compat`'s record, and its reports
    reports = [path for record in records for path in sorted(record.parent.glob("reports/*"))]
    return [*site_inputs(config.root), *records, *reports]


def site_sections(config: BookConfig, outputs: tuple[Output, ...] = ()) -> SiteSections:
    """What the site stage reads of ``config``; ``outputs``: those this build knows, of
    which it holds and links the ones that say so."""
    return SiteSections(
        config.book,
        config.build,
        config.html,
        config.library,
        config.colab,
        config.sagemaker,
        config.editions,
        linked(outputs),
    )


def _sphinx_reads(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [sphinx_inputs(layout)]


@dataclass
class _SiteRun:
    """A build of the site, with the Sphinx process started for it (if any)."""

    config: BookConfig
    keeper: SphinxKeeper | None
    early: EarlySphinx | None
    drawing: subprocess.Popen[bytes] | None = None  # a cold site's early math drawing

    def __call__(self, made: Made, config: BookConfig, reporter: Reporter) -> bool:
        from polybook.site.stage import build_site

        errors = len(reporter.errors)
        sections = site_sections(config, made.outputs)
        pages_out = self.keeper.pages_out if self.keeper is not None else None
        site = build_site(made.executed, sections, reporter, self.early, pages_out)
        if len(reporter.errors) == errors:  # else Sphinx failed: the site is not all written
            logger.info("site written to %s", site.index)
        return True

    def close(self) -> None:
        if self.drawing is not None and self.drawing.poll() is None:  # the site not built
            self.drawing.kill()
            self.drawing.wait()
        if self.keeper is not None:
            self.keeper.keep(self.config.layout, self.early)
        elif self.early is not None:
            self.early.stop()  # where the site did not need it


def _start(config: BookConfig, keeper: object) -> Run:
    """Sphinx starts while the pages are prepared: ``keeper``'s, under ``polybook serve``."""
    from polybook.site.stage import SphinxKeeper, start_early

    drawing = _draw_early(config)
    if isinstance(keeper, SphinxKeeper):
        return _SiteRun(config, keeper, keeper.take(config.layout), drawing)
    return _SiteRun(config, None, start_early(config.layout), drawing)


def _draw_early(config: BookConfig) -> subprocess.Popen[bytes] | None:
    """A cold site's formulas drawn from its pages while they are prepared (see
    :mod:`polybook.site.math_prefetch`): the pages it takes that lie inside the book and
    write a ``$``; none, no process."""
    from polybook.site import math_prefetch
    from polybook.source.book import source_files

    cache = config.layout.math_cache
    if math_prefetch.cached(cache):
        return None
    pages = source_files(config.root, config.build)
    held = [page for page in pages if config.confinement.holds(config.root / page)]
    return math_prefetch.start(cache, config.root, math_prefetch.with_math(config.root, held))


OUTPUT = Output(
    NAME,
    "execute (from the cache) and build the site",
    _writes,
    reads=_reads,
    sphinx_reads=_sphinx_reads,
    start=_start,
    holds_outputs=True,
)
