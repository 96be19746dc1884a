"""The epubs as an output: one per framework, ``_build/epub``."""

from __future__ import annotations

import logging
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.epub.places import NAME, epub_file
from polybook.epub.shape import PER_FRAMEWORK, SITE_FOLDER
from polybook.layout import Layout
from polybook.output import Made, Output, SiteLink

logger = logging.getLogger("polybook")


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [epub_file(layout, fw) for fw in tabs]


def _built(layout: Layout, tabs: tuple[str, ...]) -> dict[str, dict[str, Path]]:
    """The finished epubs, which the site holds and links from every page."""
    return {fw: {"": path} for fw, path in layout.built_books(NAME, tabs, ".epub").items()}


def _build(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    from polybook.epub.stage import build_epub

    written = build_epub(made.executed, config.book, config.build, config.html, reporter)
    for path in written:
        logger.info("wrote %s", path.relative_to(config.root))
    return True


HELP = "an epub per framework, `_build/epub/<name>-<framework>.epub` ([docs/epub.md](docs/epub.md))"
OUTPUT = Output(
    NAME,
    HELP,
    _writes,
    build=_build,
    per_framework=PER_FRAMEWORK,
    site=SiteLink(SITE_FOLDER, "EPUB", _built),
)
