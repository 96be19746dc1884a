"""What the execute stage is given besides the notebooks: the parts of the configuration it
reads (:class:`Execution`) and the book's framework environments (:class:`Environments`),
both made by its caller, who reads the whole configuration."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from polybook.config import Book
from polybook.config.schema import BuildSection, Edition, Section

if TYPE_CHECKING:
    from polybook.environments.venvs import Environment


@dataclass(frozen=True)
class Execution:
    """The sections of the configuration the execute stage reads."""

    book: Book
    build: BuildSection  # [build]: whether, where and how notebooks run, and their cache
    figure_format: str = "svg"  # [html] figure_format: how the kernels draw figures
    editions: tuple[Edition, ...] = ()  # [edition-<name>]: their execution caches are read
    # [executor-<name>]: each executor's own settings, by executor (its executor reads one).
    executor_settings: Mapping[str, Section] = field(default_factory=dict)


class Environments(Protocol):
    """The book's framework environments, as its caller (who reads ``[env-<tab>]`` and
    ``[build] requirements``) makes them."""

    def ready(self, tabs: tuple[str, ...]) -> Mapping[str, Environment]:
        """The environments of ``tabs``, by tab, set up here where missing."""

    def named(self, tabs: tuple[str, ...], device: str) -> Mapping[str, Environment]:
        """The environments of ``tabs`` on ``device``, by tab, as their pins name them;
        nothing is set up (the workers, or no one, hold them)."""

    def existing(self, tab: str) -> bool:
        """Whether ``tab`` runs in an interpreter of the author's (``[env-<tab>] python``)."""


@dataclass(frozen=True)
class Given:
    """Environments set up already (a side build's), instead of the book's."""

    environments: Mapping[str, Environment]

    def ready(self, tabs: tuple[str, ...]) -> Mapping[str, Environment]:
        return {fw: self.environments[fw] for fw in tabs if fw in self.environments}

    def named(self, tabs: tuple[str, ...], device: str) -> Mapping[str, Environment]:
        return self.ready(tabs)

    def existing(self, tab: str) -> bool:
        return False
