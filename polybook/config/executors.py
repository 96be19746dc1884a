"""The executors ``[build] executor`` names: each name, what it does, what it can do, and the
module that makes it (its ``create``, an
:class:`~polybook.execution.executors.protocol.ExecutorFactory`).

A new executor is a module and one entry here (or, from outside the tree, an entry point
``polybook.executors`` naming a :class:`Registered`: :mod:`polybook.plugins`). The config
key, the command line's ``--executor``, the reference in ``docs/configuration.md`` and every
stage that depends on what an executor does read this table; none compares a name. What an
executor alone reads is its own section, ``[executor-<name>]`` (``Registered.section``): the
loader reads and checks it as the book's other sections, and the command line's options for
it are made from its keys.
Modules are imported when chosen: the command line reads the names without importing any
executor. (It is the configuration's: whether a build runs the book's code is known when
the book is opened.)
"""

from __future__ import annotations

from dataclasses import dataclass, is_dataclass
from functools import cache
from importlib.metadata import EntryPoint
from pathlib import Path

from polybook import plugins
from polybook.config.ini_text import key_location
from polybook.config.schema import BuildSection, Key, Section, declared_keys, did_you_mean
from polybook.config.schema.executors import EXECUTOR_PREFIX, DaskSection
from polybook.diagnostics import Diagnostic, PolybookError

DEFAULTS = BuildSection()


@dataclass(frozen=True)
class Registered:
    """One executor: the module whose ``create`` makes it, what it does (for the docs), and
    what it can do, which the stages ask instead of its name."""

    module: str
    help: str
    # It runs the book's code (a build with it may load the book's own Sphinx extensions).
    runs_code: bool = True
    # Its kernels fork from warm zygotes (``[build] fork_kernels``) started on this host.
    uses_zygotes: bool = False
    # It takes the zygotes a cold build starts as the build starts (needs ``uses_zygotes``).
    head_start: bool = False
    # It can run a side build (``polybook upgrade``) in a side environment on this host.
    side_build: bool = False
    # The ``[build]`` keys it does not honour: a book that sets one is warned at its line.
    ignores: tuple[str, ...] = ()
    # Its own section, ``[executor-<name>]``: a frozen dataclass whose fields are keys
    # (``config.schema.key``), its ``SECTION`` that name; its values are handed to ``create``
    # after the inventory, and each key is an option of ``polybook build``.
    section: type[Section] | None = None
    # ``[build]`` keys that stand, deprecated, for keys of its section: (``[build]`` key,
    # its section's key); a book that sets one is warned at its line.
    build_aliases: tuple[tuple[str, str], ...] = ()
    # The module whose ``start_worker(settings, nthreads, envs_dir, gpus)`` makes this host
    # one of its workers (``polybook worker``; its section's keys read by ``worker`` are the
    # command's options).
    worker: str = ""

    @property
    def keys(self) -> tuple[Key, ...]:
        """The keys of its section."""
        return declared_keys(self.section) if self.section is not None else ()

    def settings(self) -> Section | None:
        """Its section's values when the book sets none: the keys' defaults."""
        return self.section() if self.section is not None else None


EXECUTORS: dict[str, Registered] = {
    "local": Registered(
        "polybook.execution.executors.local",
        "worker processes on this host",
        uses_zygotes=True,
        head_start=True,
        side_build=True,
    ),
    "dask": Registered(
        "polybook.execution.executors.dask",
        "tasks on the workers of the Dask cluster at `[executor-dask] scheduler`",
        ignores=("gpu_share",),  # each task holds whole GPUs, as the workers declare them
        section=DaskSection,
        build_aliases=(("dask_scheduler", "scheduler"),),
        worker="polybook.execution.executors.dask_worker",
    ),
    "none": Registered(
        "polybook.execution.executors.none",
        "nothing runs: every notebook comes from the execution cache or `_freeze/`, no"
        " framework installed; one missing there is an error (CI's job that builds the"
        " outputs)",
        runs_code=False,
    ),
}


def load_executor(plugin: plugins.Plugin, point: EntryPoint) -> Registered:
    """The executor a ``polybook.executors`` entry point names, checked (its section, if it
    declares one, is ``[executor-<its name>]``)."""
    entry = plugins.load_one(plugin, point, Registered, frozenset(EXECUTORS))
    named = getattr(entry.section, "SECTION", None)
    if entry.section is not None and not is_dataclass(entry.section):
        raise plugins.broken(plugin, f"declares a section that is no dataclass: {entry.section!r}")
    if entry.section is not None and named != EXECUTOR_PREFIX + plugin.name:
        wanted = EXECUTOR_PREFIX + plugin.name
        raise plugins.broken(plugin, f"declares the section [{named}], not [{wanted}]")
    return entry


@cache
def _plugins() -> dict[str, Registered]:
    return plugins.load(plugins.EXECUTORS_GROUP, load_executor)


def registered() -> dict[str, Registered]:
    """polybook's executors, then those of the plugins installed."""
    return {**EXECUTORS, **_plugins()}


def executor_keys() -> tuple[Key, ...]:
    """The keys of every registered executor's section, polybook's first."""
    return tuple(key for entry in registered().values() for key in entry.keys)


def check_executor(root: Path, name: str) -> None:
    """Raises a located error when ``[build] executor`` (of the book at ``root``) names no
    registered executor."""
    known = registered()
    if name not in known:
        where = key_location(root, "build", "executor")
        accepted = ", ".join(known)
        message = f"[build] executor: {name!r} is not one of {accepted}"
        raise PolybookError(where, message + did_you_mean(name, known), "config")


def unhonoured(root: Path, build: BuildSection) -> list[Diagnostic]:
    """A warning at its line for each ``[build]`` key the book (at ``root``) sets that its
    executor does not honour (``Registered.ignores``)."""
    found = []
    for name in capabilities(build.executor).ignores:
        if getattr(build, name) != getattr(DEFAULTS, name):
            message = f"[build] {name} is not honoured by executor {build.executor!r}: ignored"
            found.append(Diagnostic(key_location(root, "build", name), message, "config"))
    return found


def capabilities(name: str) -> Registered:
    """What the executor ``name`` can do; an unknown name (refused where the book is
    opened) can do nothing."""
    return registered().get(name) or Registered("", "", runs_code=False)


def side_executor(name: str) -> str:
    """The executor of a side build when the book's is ``name``: it, where it can run one;
    else the first registered that can."""
    if capabilities(name).side_build:
        return name
    return next(other for other, entry in registered().items() if entry.side_build)


def markdown_list() -> str:
    """The executors as the configuration reference lists them (polybook's own), each with
    its section."""
    return "".join(
        f"- `{name}`: {entry.help}"
        + (f"; its settings: `[{entry.section.SECTION}]`" if entry.section else "")
        + "\n"
        for name, entry in EXECUTORS.items()
    )
