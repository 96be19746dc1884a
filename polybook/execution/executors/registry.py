"""The executor ``[build] executor`` names, made: its module (registered in
:mod:`polybook.config.executors`, with what each executor can do) imported when chosen."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from polybook.config.executors import (
    EXECUTORS,
    Registered,
    check_executor,
    markdown_list,
    registered,
)

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection, Section
    from polybook.execution.executors.protocol import (
        ConfiguredFactory,
        ExecutorFactory,
        ExecutorSetup,
    )
    from polybook.execution.jobs import Inventory

__all__ = [
    "EXECUTORS",
    "Registered",
    "check_executor",
    "create_executor",
    "markdown_list",
    "registered",
]


def create_executor(
    book: Book,
    build: BuildSection,
    inventory: Inventory | None = None,
    settings: Mapping[str, Section] | None = None,
) -> ExecutorSetup:
    """The executor ``[build] executor`` names, made for ``book`` (see
    :class:`~polybook.execution.executors.protocol.ExecutorFactory`); one that declares a
    section is given its values from ``settings`` (by executor; its keys' defaults where
    none are given: :class:`~polybook.execution.executors.protocol.ConfiguredFactory`)."""
    check_executor(book.root, build.executor)
    entry = registered()[build.executor]
    module = importlib.import_module(entry.module)
    own = (settings or {}).get(build.executor) or entry.settings()
    if own is None:
        return cast("ExecutorFactory", module.create)(book, build, inventory)
    return cast("ConfiguredFactory", module.create)(book, build, inventory, own)
