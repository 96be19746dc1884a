"""The site as an output: ``_build/html``, its Sphinx started while the pages are prepared
(or kept warm between the builds of ``polybook serve``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.output import Made, Output, Run
from polybook.site.sections import SiteSections

if TYPE_CHECKING:
    from polybook.render.sphinx.process import EarlySphinx
    from polybook.site.stage import SphinxKeeper

logger = logging.getLogger("polybook")


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.html / "index.html"]


def _linked(config: BookConfig) -> list[Path]:
    """The PDFs, epubs and decks built before the site, which it holds and links, and the
    record of `polybook compat` it shows."""
    layout = config.layout
    built = [
        *layout.built_pdfs(config.build.tabs).values(),
        *layout.built_epubs(config.build.tabs).values(),
    ]
    decks = layout.built_decks(config.build.tabs)
    built += [layout.deck(fw, page, ".html") for fw, pages in decks.items() for page in pages]
    records = layout.compat_records  # `polybook compat`'s record, and the reports it links
    reports = [path for record in records for path in sorted(record.parent.glob("reports/*"))]
    return [*built, *records, *reports]


def site_sections(config: BookConfig) -> SiteSections:
    """What the site stage reads of ``config``."""
    return SiteSections(
        config.book,
        config.build,
        config.html,
        config.pdf,
        config.library,
        config.colab,
        config.sagemaker,
        config.editions,
    )


def _sphinx_reads(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.sphinx_inputs()]


@dataclass
class _SiteRun:
    """A build of the site, with the Sphinx process started for it (if any)."""

    config: BookConfig
    keeper: SphinxKeeper | None
    early: EarlySphinx | None

    def __call__(self, made: Made, config: BookConfig, reporter: Reporter) -> bool:
        from polybook.site.stage import build_site

        errors = len(reporter.errors)
        site = build_site(made.executed, site_sections(config), reporter, self.early)
        if len(reporter.errors) == errors:  # else Sphinx failed: the site is not all written
            logger.info("site written to %s", site.index)
        return True

    def close(self) -> None:
        if self.keeper is not None:
            self.keeper.keep(self.config.layout, self.early)
        elif self.early is not None:
            self.early.stop()  # where the site did not need it


def _start(config: BookConfig, keeper: object) -> Run:
    """Sphinx starts while the pages are prepared: ``keeper``'s, under ``polybook serve``."""
    from polybook.site.stage import SphinxKeeper, start_early

    if isinstance(keeper, SphinxKeeper):
        return _SiteRun(config, keeper, keeper.take(config.layout))
    return _SiteRun(config, None, start_early(config.layout))


OUTPUT = Output(
    "html",
    "execute (from the cache) and build the site",
    _writes,
    reads=_linked,
    sphinx_reads=_sphinx_reads,
    start=_start,
)
