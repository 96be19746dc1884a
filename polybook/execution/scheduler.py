"""Runs notebook jobs: longest first, within a job limit and a device inventory.

The scheduler decides *what* runs *where*; an
:class:`~polybook.execution.executors.protocol.Executor` runs it: the local one
(:mod:`polybook.execution.executors.local`) on a few long-lived worker processes, the Dask one
(:mod:`polybook.execution.executors.dask`) as tasks on a cluster's workers.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import replace

from nbformat import NotebookNode

from polybook.execution.executors.protocol import Executor
from polybook.execution.jobs import Inventory, Job, JobResult
from polybook.meta import cell_meta


def gpus_needed(nb: NotebookNode, inventory: Inventory) -> int:
    """GPUs a notebook holds while it runs: what its runnable cells need; one at least on a
    GPU host (frameworks take the default GPU), none on a host without."""
    if inventory.gpus == 0:
        return 0
    needs = [cell_meta(c).gpus for c in nb.cells if c.cell_type == "code"]
    return max([1, *(n for n in needs if n <= inventory.gpus)])


def frameworks_apart(jobs: list[Job], slots: int) -> list[Job]:
    """``jobs`` in their order, except that the first ``slots`` come from different
    frameworks where there are enough: each slot's first job then starts its own
    framework's kernel, side by side, instead of every slot waiting for the same one."""
    head: list[Job] = []
    for job in jobs:
        if len(head) < slots and all(j.framework != job.framework for j in head):
            head.append(job)
    return [*head, *(job for job in jobs if all(job is not h for h in head))]


def longest_first(jobs: list[Job]) -> list[Job]:
    """Longest expected job first. Jobs never timed (a cold build) come after, in their
    frameworks' order (one framework's kernels after another's), and within a framework the
    notebooks with more code cells first: a guess at their length that keeps a long one
    from running alone at the end."""
    rank = {fw: n for n, fw in enumerate(dict.fromkeys(j.framework for j in jobs))}

    def key(job: Job) -> tuple[float, int, int]:
        if job.expected:
            return (-job.expected, 0, 0)
        cells = sum(1 for c in job.notebook.cells if c.cell_type == "code")
        return (0.0, rank[job.framework], -cells)

    return sorted(jobs, key=key)


class Scheduler:
    """Longest expected job first (:func:`longest_first`), the first job of each slot from
    a framework of its own; a job starts when a slot and its GPUs are free."""

    def __init__(
        self,
        executor: Executor,
        inventory: Inventory,
        jobs: int,
        on_start: Callable[[Job], None] = lambda job: None,
        on_finish: Callable[[JobResult], None] = lambda result: None,
    ) -> None:
        self.executor, self.inventory, self.jobs = executor, inventory, max(1, jobs)
        self.on_start, self.on_finish = on_start, on_finish

    def _take_gpus(self, load: list[int], count: int) -> tuple[int, ...] | None:
        free = sorted((n, g) for g, n in enumerate(load) if n < self.inventory.share)
        if len(free) < count:
            return None
        chosen = tuple(sorted(g for _, g in free[:count]))
        for g in chosen:
            load[g] += 1
        return chosen

    def run(self, jobs: list[Job]) -> list[JobResult]:
        pending = frameworks_apart(longest_first(jobs), self.jobs)
        load = [0] * self.inventory.slots
        running: dict[Future[JobResult], tuple[int, ...]] = {}
        results: list[JobResult] = []
        self.executor.expect(pending)
        try:
            while pending or running:
                for job in list(pending):
                    if len(running) >= self.jobs:
                        break
                    need = gpus_needed(job.notebook, self.inventory)
                    gpus = self._take_gpus(load, need)
                    if gpus is None:
                        continue
                    pending.remove(job)
                    host = self.inventory.gpus
                    ids = self.inventory.ids(gpus)
                    placed = replace(
                        job,
                        env=replace(job.env, visible_gpus=gpus, host_gpus=host, device_ids=ids),
                    )
                    self.on_start(placed)
                    running[self.executor.submit(placed)] = gpus
                if not running:  # nothing fits: a job needs more GPUs than the host has
                    raise RuntimeError(f"cannot place {pending[0].name} on {self.inventory}")
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    for g in running.pop(future):
                        load[g] -= 1
                    result = future.result()
                    results.append(result)
                    self.on_finish(result)
        except BaseException:
            self.executor.cancel()
            raise
        return results
