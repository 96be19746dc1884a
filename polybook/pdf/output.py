"""The PDFs as an output: one per framework, ``_build/pdf``."""

from __future__ import annotations

import logging
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.output import Made, Output

logger = logging.getLogger("polybook")


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.pdf(fw) for fw in tabs]


def _sphinx_reads(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.sphinx_inputs(fw) for fw in tabs]


def _build(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    from polybook.pdf.stage import build_pdf

    for path in build_pdf(made.executed, config.book, config.build, config.pdf, reporter):
        logger.info("wrote %s", path.relative_to(config.root))
    return True


HELP = "a PDF per framework, `_build/pdf/<name>-<framework>.pdf` ([docs/pdf.md](docs/pdf.md))"
OUTPUT = Output("pdf", HELP, _writes, build=_build, sphinx_reads=_sphinx_reads)
