"""The slides as an output: a deck per marked section per framework, ``_build/slides``."""

from __future__ import annotations

import logging
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.output import Made, Output, SiteLink
from polybook.slides.places import NAME, built_decks, deck, slides_dir

logger = logging.getLogger("polybook")


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [slides_dir(layout) / fw for fw in tabs]


def _built(layout: Layout, tabs: tuple[str, ...]) -> dict[str, dict[str, Path]]:
    """The reveal.js decks, each linked from its page."""
    decks = built_decks(layout, tabs).items()
    return {fw: {page: deck(layout, fw, page, ".html") for page in pages} for fw, pages in decks}


def _shared(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    """The browser assets the decks share, ``_static/`` beside their framework folders."""
    static = slides_dir(layout) / "_static"
    return sorted(p for p in static.rglob("*") if p.is_file())


def _build(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    from polybook.slides.stage import build_slides

    executed = made.executed
    made_slides = build_slides(
        executed,
        config.book,
        config.slides,
        config.html,
        config.build.output_limit,
        reporter,
    )
    logger.info(
        "slides written to %s (%d decks, %d files changed)",
        made_slides.folder,
        len(made_slides.decks),
        made_slides.changed,
    )
    return True


OUTPUT = Output(
    NAME,
    "a deck per marked section per framework, `_build/slides/<framework>/`: RISE notebooks"
    " and reveal.js pages ([docs/outputs.md](docs/outputs.md))",
    _writes,
    build=_build,
    per_framework=True,
    site=SiteLink("_slides", "", _built, message="slides", shared=_shared),
)
