"""The executors ``[build] executor`` names: each name, what it does, and the module that
makes it (its ``create``, an :class:`~polybook.execution.executors.protocol.ExecutorFactory`).

A new executor is a module of this package and one entry here: the config key, the command
line's ``--executor`` and the reference in ``docs/configuration.md`` read this table. Modules
are imported when chosen: the command line reads the names without importing any executor.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from polybook.config import key_location
from polybook.config.schema import did_you_mean
from polybook.diagnostics import PolybookError

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection
    from polybook.execution.executors.protocol import ExecutorFactory, ExecutorSetup
    from polybook.execution.jobs import Inventory
    from polybook.execution.kernels.zygote_pool import ZygotePool


@dataclass(frozen=True)
class Registered:
    """One executor: the module whose ``create`` makes it, and what it does, for the docs."""

    module: str
    help: str


EXECUTORS: dict[str, Registered] = {
    "local": Registered("polybook.execution.executors.local", "worker processes on this host"),
    "dask": Registered(
        "polybook.execution.executors.dask",
        "tasks on the workers of the Dask cluster at `[build] dask_scheduler`",
    ),
    "none": Registered(
        "polybook.execution.executors.none",
        "nothing runs: every notebook comes from the execution cache or `_freeze/`, no"
        " framework installed; one missing there is an error (CI's job that builds the"
        " outputs)",
    ),
}


def check_executor(root: Path, name: str) -> None:
    """Raises a located error when ``[build] executor`` (of the book at ``root``) names no
    registered executor."""
    if name not in EXECUTORS:
        where = key_location(root, "build", "executor")
        accepted = ", ".join(EXECUTORS)
        message = f"[build] executor: {name!r} is not one of {accepted}"
        raise PolybookError(where, message + did_you_mean(name, EXECUTORS), "config")


def create_executor(
    book: Book,
    build: BuildSection,
    inventory: Inventory | None = None,
    zygotes: ZygotePool | None = None,
) -> ExecutorSetup:
    """The executor ``[build] executor`` names, made for ``book`` (see
    :class:`~polybook.execution.executors.protocol.ExecutorFactory`)."""
    check_executor(book.root, build.executor)
    module = importlib.import_module(EXECUTORS[build.executor].module)
    factory = cast("ExecutorFactory", module.create)
    return factory(book, build, inventory, zygotes)


def markdown_list() -> str:
    """The executors as the configuration reference lists them."""
    return "".join(f"- `{name}`: {entry.help}\n" for name, entry in EXECUTORS.items())
