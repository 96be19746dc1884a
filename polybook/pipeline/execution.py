"""The execute stage's inputs, made from the configuration: the sections it reads
(:class:`~polybook.execution.inputs.Execution`) and the book's environments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from polybook.config import BookConfig
from polybook.environments import venvs
from polybook.environments.prepare import ensure_all
from polybook.execution.inputs import Execution


def execution(config: BookConfig) -> Execution:
    """What the execute stage reads of ``config``."""
    return Execution(
        config.book,
        config.build,
        config.html.figure_format,
        config.editions,
        config.executor_settings,
    )


@dataclass(frozen=True)
class BookEnvironments:
    """The book's framework environments (an
    :class:`~polybook.execution.inputs.Environments`): polybook's venvs from the pins and
    ``[build] requirements``, or an interpreter of the author's (``[env-<tab>] python``)."""

    config: BookConfig

    def ready(self, tabs: tuple[str, ...]) -> Mapping[str, venvs.Environment]:
        return {e.framework: e for e in self.set_up(tabs)}

    def set_up(self, tabs: tuple[str, ...], verify: bool = False) -> list[venvs.Environment]:
        """The environments of ``tabs``, set up where missing (``verify``: also where one no
        longer imports its framework)."""
        config = self.config
        extras = {fw: config.extra_requirements(fw) for fw in tabs}
        device, settings = config.build.device, config.env_settings
        return ensure_all(config.book, tabs, device, settings, extras, verify)

    def named(self, tabs: tuple[str, ...], device: str) -> Mapping[str, venvs.Environment]:
        return {fw: self.one(fw, device) for fw in tabs}

    def one(self, tab: str, device: str) -> venvs.Environment:
        """The environment of ``tab`` on ``device``, named by its pins (not set up)."""
        config = self.config
        extras = config.extra_requirements(tab)
        return venvs.book_environment(config.book, tab, device, config.envs, extras)

    def existing(self, tab: str) -> bool:
        return bool(self.config.env_for(tab).python)
