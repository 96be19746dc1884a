"""The executors ``[build] executor`` names: each name and the module that makes it (its
``create``, an :class:`~polybook.execution.executors.protocol.ExecutorFactory`).

A new executor is a module of this package and one entry here. Modules are imported when
chosen: the command line reads the names without importing any executor."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection
    from polybook.execution.executors.protocol import ExecutorFactory, ExecutorSetup
    from polybook.execution.jobs import Inventory
    from polybook.execution.kernels.zygote_pool import ZygotePool

EXECUTORS: dict[str, str] = {
    "local": "polybook.execution.executors.local",  # worker processes on this host
    "dask": "polybook.execution.executors.dask",  # tasks on a Dask cluster's workers
    "none": "polybook.execution.executors.none",  # nothing runs: the cache or _freeze/ only
}


def create_executor(
    book: Book,
    build: BuildSection,
    inventory: Inventory | None = None,
    zygotes: ZygotePool | None = None,
) -> ExecutorSetup:
    """The executor ``[build] executor`` names, made for ``book`` (see
    :class:`~polybook.execution.executors.protocol.ExecutorFactory`)."""
    module = importlib.import_module(EXECUTORS[build.executor])
    factory = cast("ExecutorFactory", module.create)
    return factory(book, build, inventory, zygotes)
