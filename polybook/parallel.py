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
