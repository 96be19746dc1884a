"""What a build is asked for: :class:`BuildRequest`, an output (``polybook.output``) for some
frameworks and pages. Light: the command reads it before deciding there is work."""

from __future__ import annotations

from dataclasses import dataclass

from polybook.output import Output
from polybook.source.model import SourceRequest


@dataclass(frozen=True)
class BuildRequest:
    """A build: its output, its frameworks, and the pages to execute (None: all);
    ``outputs``: every output the command knows (an output that holds others, the site,
    holds those with a ``site`` link)."""

    output: Output
    tabs: tuple[str, ...]
    pages: frozenset[str] | None = None
    outputs: tuple[Output, ...] = ()

    @property
    def target(self) -> str:
        """The output's name, as ``polybook build`` takes it."""
        return self.output.name

    @property
    def sources(self) -> SourceRequest:
        return SourceRequest(self.tabs, self.pages)
