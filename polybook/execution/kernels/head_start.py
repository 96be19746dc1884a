"""A cold build's first zygotes, started as the build starts.

A build whose execution cache is empty (none shared, nothing frozen in ``_freeze/``) runs
every notebook of its tabs. The zygotes of its first frameworks then need not wait for the
pages to be read, the library extracted and the run planned: half a second on one CPU,
while the other had nothing to do. They start at once (this module imports neither
nbformat nor the Jupyter client), when the executor ``[build] executor`` names takes a head
start (its registry entry says so), in a pool kept here for the build's layout, which that
executor's setup then takes as its own (:func:`take`: the local executor's
:func:`~polybook.execution.executors.local.create`); one that no job turns out to need ends
with the build.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from polybook.config.executors import capabilities
from polybook.diagnostics import PolybookError
from polybook.environments import devices, venvs
from polybook.execution.inputs import Environments, Execution
from polybook.execution.kernels.launch import kernel_env, zygote_spec
from polybook.execution.kernels.zygote_pool import ZygotePool
from polybook.layout import FREEZE_DIR, Layout

logger = logging.getLogger("polybook")

_AHEAD: dict[Path, ZygotePool] = {}  # per build (its work folder): the pool started ahead
_LOCK = threading.Lock()


def cold(run: Execution) -> bool:
    """Whether no notebook can come from a cache: none is named, no other edition's is
    read, and the local one is empty.
    (Read from the configuration and the folder: the cache's own module imports nbformat,
    a tenth of a second before the first zygote could start.)"""
    local = run.book.layout.exec_cache
    empty = next(local.glob("*/*.ipynb"), None) is None
    return not run.build.cache and not run.editions and empty


def head_start(
    run: Execution, environments: Environments, tabs: tuple[str, ...]
) -> ZygotePool | None:
    """The zygotes of the first of ``tabs`` (as many as jobs run at once), started now when
    the build is cold and runs its notebooks here in forked kernels; None otherwise."""
    build = run.build
    executor = capabilities(build.executor)
    takes = executor.head_start and executor.uses_zygotes
    if not (takes and build.fork_kernels and build.eval_notebook):
        return None
    if run.book.layout.side or not cold(run):
        return None
    try:
        device = devices.resolve_device(build.device)
    except PolybookError:  # the execution stage reports it
        return None
    pool = ZygotePool()
    try:
        for name in tabs[: run.book.jobs]:
            _start(run, environments, name, device, pool)
    except BaseException:
        pool.close()
        raise
    if not pool.starting:
        pool.close()
        return None
    with _LOCK:
        _AHEAD[run.book.layout.work] = pool
    return pool


def take(layout: Layout) -> ZygotePool | None:
    """The zygotes started ahead for the build of ``layout``, taken by its executor (once);
    None when none were."""
    with _LOCK:
        return _AHEAD.pop(layout.work, None)


def forget(layout: Layout) -> None:
    """The build of ``layout`` ended: zygotes started ahead that no executor took are no
    longer kept here (the build closes them)."""
    with _LOCK:
        _AHEAD.pop(layout.work, None)


def _start(
    run: Execution, environments: Environments, name: str, device: str, pool: ZygotePool
) -> None:
    """Start the zygote of tab ``name`` where its environment is ready."""
    if environments.existing(name) or (run.book.root / FREEZE_DIR / name).is_dir():
        return  # an environment of the author's, or outputs that may come from _freeze/
    try:
        env = environments.named((name,), device)[name]
        if venvs.problem(env):
            return  # set up by the execution stage, which then starts its zygote
        venvs.ensure(env)  # installed: at most its kernelspec written, as the stage would
        kernel = kernel_env(run.book, run.build, run.figure_format, env, Path(), "", 0)
        spec = zygote_spec(kernel)
    except (OSError, ValueError, KeyError, PolybookError) as exc:  # the stage says why
        logger.debug("no head start for %s: %s", name, exc)
        return
    pool.start(spec)
