"""The outputs of the pipeline's own stages: ``lib`` (the library's modules, which the
library stage writes into the book), ``dist`` (the package as an sdist and a wheel,
``_build/dist``) and ``eval`` (the executed notebooks, ``_build/eval``)."""

from __future__ import annotations

import logging
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.output import Made, Output, no_paths

logger = logging.getLogger("polybook")


def _dist_writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.dist]


def _build_dist(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    from polybook.library.wheel import build_dist

    for path in build_dist(made.library, config.book, config.library, reporter):
        logger.info("wrote %s", path.relative_to(config.root))
    return not reporter.errors


def _eval_writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.eval]


LIB = Output("lib", "only the library modules, `d2l/<framework>.py`", no_paths, executes=False)
DIST = Output(
    "dist",
    "the `d2l` package as an sdist and a wheel",
    _dist_writes,
    executes=False,
    build=_build_dist,
)
EVAL = Output("eval", "execute, no output", _eval_writes)
