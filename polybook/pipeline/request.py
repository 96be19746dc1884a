"""What a build is asked for: :class:`BuildRequest`, and the targets as data (which stages
each runs, what it writes). Light: the command reads it before deciding there is work."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from polybook.layout import Layout
from polybook.source.model import SourceRequest


@dataclass(frozen=True)
class BuildRequest:
    """A build: its target, its frameworks, and the pages to execute (None: all)."""

    target: str
    tabs: tuple[str, ...]
    pages: frozenset[str] | None = None

    @property
    def sources(self) -> SourceRequest:
        return SourceRequest(self.tabs, self.pages)


@dataclass(frozen=True)
class Target:
    """What ``polybook build <name>`` runs and writes."""

    name: str
    help: str
    executes: bool  # runs the execute stage (else only source and library)
    outputs: Callable[[Layout, tuple[str, ...]], list[Path]]  # whose loss means a rebuild


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("lib", "the d2l package's modules only", False, lambda lay, tabs: []),
        Target("dist", "the d2l package as an sdist and a wheel", False, lambda lay, t: [lay.dist]),
        Target("eval", "execute the notebooks", True, lambda lay, tabs: [lay.eval]),
        Target(
            "notebooks",
            "students' notebooks for Jupyter, Colab and SageMaker",
            True,
            lambda lay, tabs: [lay.notebooks],
        ),
        Target("html", "the site", True, lambda lay, tabs: [lay.html / "index.html"]),
        Target("pdf", "a PDF per framework", True, lambda lay, tabs: [lay.pdf(fw) for fw in tabs]),
        Target(
            "epub", "an epub per framework", True, lambda lay, tabs: [lay.epub(fw) for fw in tabs]
        ),
        Target(
            "slides",
            "a deck per section per framework: RISE notebooks and reveal.js pages",
            True,
            lambda lay, tabs: [lay.slides / fw for fw in tabs],
        ),
    )
}
