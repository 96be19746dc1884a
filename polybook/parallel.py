"""Pages worked on at once, in forked processes.

Reading the pages is CPU-bound Python, which threads would not run at once. A forked worker
inherits the parent's modules and data, so only the items and the results travel. Where
forking is not safe (other threads are running, as while serving) or not worth it (few
items, one CPU), the work runs in this process.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from polybook.lifeline import die_with_parent

Item = TypeVar("Item")
Result = TypeVar("Result")
MIN_ITEMS = 32  # below this, starting the workers costs about what they save
CHUNKS_PER_WORKER = 2  # a little balancing between pages of unequal length

_work: dict[str, Callable[[Any], Any]] = {}  # what the forked workers run: inherited
# The cyclic collector's thresholds in a build's processes: what a build makes (the pages'
# parses, notebooks, doctrees) mostly lives to its end, and by default the collector walked
# it all again each time the heap grew by a quarter.
COLLECTING = (50_000, 20, 20)
_forked = {"since_frozen": False}  # whether this process forked since it last collected


def collect_for_builds() -> None:
    """This process's collector set for builds (:data:`COLLECTING`)."""
    gc.set_threshold(*COLLECTING)


def _freeze_for_fork() -> None:
    gc.freeze()
    _forked["since_frozen"] = True


def forks_leave_inherited_uncollected() -> None:
    """From now on, what this process holds when it forks is left out of the collector's
    walks (:func:`gc.freeze`), in the fork and here. A walk writes to each object it
    visits: a fork that walked what it inherited copied the memory it shares with its
    parent, and the parent walked it all again as it grew (Sphinx's readers and writers).
    A process that keeps running calls :func:`collect_after_forks` when it is idle."""
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_freeze_for_fork)


def collect_after_forks() -> None:
    """Where this process forked since it last collected: one walk of all it holds (what
    died since a fork froze it is freed), then what lives is frozen again."""
    if _forked["since_frozen"]:
        _forked["since_frozen"] = False
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def collect_young() -> None:
    """Collect the young generations now, while this process waits: the next build starts
    with their counts at zero, so an edit's build (fewer new objects than the threshold of
    :data:`COLLECTING`) runs without a collection in its way."""
    gc.collect(1)


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _worker(parent: int) -> None:
    die_with_parent(parent)  # a killed build leaves no reader behind
    gc.disable()  # short-lived, and what it makes lives to the end: nothing to collect
    logging.disable(logging.CRITICAL)  # the parent reports what the workers find
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides, and ends them
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run(chunk: Sequence[Any]) -> list[Any]:
    work = _work["func"]
    return [work(item) for item in chunk]


def map_pages(func: Callable[[Item], Result], items: Sequence[Item], jobs: int = 0) -> list[Result]:
    """``[func(item) for item in items]``, in order; on ``jobs`` processes (0: the CPUs)
    where that pays. ``func`` must not depend on changes made after the fork."""
    jobs = min(jobs or usable_cpus(), len(items) // (MIN_ITEMS // 2) or 1)
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if jobs < 2 or len(items) < MIN_ITEMS or threading.active_count() > 1 or not forkable:
        return [func(item) for item in items]
    size = -(-len(items) // (jobs * CHUNKS_PER_WORKER))
    chunks = [items[start : start + size] for start in range(0, len(items), size)]
    _work["func"] = func
    collecting = gc.isenabled()
    gc.disable()  # the results arrive as many new objects, all kept: nothing to collect
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(jobs, initializer=_worker, initargs=(os.getpid(),)) as pool:
            parts = pool.map(_run, chunks, chunksize=1)
    finally:
        _work.clear()
        if collecting:
            gc.enable()
    return [result for part in parts for result in part]
