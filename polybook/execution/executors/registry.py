"""The executor ``[build] executor`` names, made: its module (registered in
:mod:`polybook.config.executors`, with what each executor can do) imported when chosen."""

from __future__ import annotations

import importlib
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
    from polybook.config.schema import BuildSection
    from polybook.execution.executors.protocol import ExecutorFactory, ExecutorSetup
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
) -> ExecutorSetup:
    """The executor ``[build] executor`` names, made for ``book`` (see
    :class:`~polybook.execution.executors.protocol.ExecutorFactory`)."""
    check_executor(book.root, build.executor)
    module = importlib.import_module(registered()[build.executor].module)
    factory = cast("ExecutorFactory", module.create)
    return factory(book, build, inventory)
