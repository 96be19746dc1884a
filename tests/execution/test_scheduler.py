"""The scheduler with a simulated device inventory (this host has no GPU)."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from nbformat import NotebookNode

from polybook.execution.jobs import Inventory, Job, JobResult
from polybook.execution.kernels.launch import KernelEnv
from polybook.execution.scheduler import Scheduler, gpus_needed
from polybook.nb import new_code_cell, new_notebook


def notebook(*gpus: int) -> NotebookNode:
    nb = new_notebook()
    for index, need in enumerate(gpus):
        cell = new_code_cell("pass", f"c{index}")
        cell.metadata["polybook"] = {"requires": {"gpus": need}} if need else {}
        nb.cells.append(cell)
    return nb


def job(name: str, seconds: float, *gpus: int) -> Job:
    env = KernelEnv("pytorch", "k", (), Path("."))
    return Job(name, "pytorch", name, notebook(*gpus), env, expected=seconds)


class SimulatedExecutor:
    """Runs each job as a sleep of its expected length; records what ran where and when."""

    on_this_host = True

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=16)
        self.lock = threading.Lock()
        self.running: dict[str, tuple[int, ...]] = {}
        self.max_running = 0
        self.order: list[str] = []
        self.overlaps: list[tuple[int, ...]] = []
        self.expected: list[str] = []

    def expect(self, jobs: list[Job]) -> None:
        self.expected = [j.path for j in jobs]

    def submit(self, job: Job) -> Future[JobResult]:
        return self.pool.submit(self._run, job)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)

    def _run(self, job: Job) -> JobResult:
        gpus = job.env.visible_gpus
        with self.lock:
            self.order.append(job.path)
            self.running[job.path] = gpus
            self.max_running = max(self.max_running, len(self.running))
            self.overlaps.append(tuple(g for v in self.running.values() for g in v))
        time.sleep(job.expected)
        with self.lock:
            del self.running[job.path]
        return JobResult(job, "ok", job.notebook, job.expected, gpus=gpus)

    def cancel(self) -> None:
        pass


def test_each_slots_first_job_is_of_another_framework_then_the_order_holds() -> None:
    executor = SimulatedExecutor()
    first = [replace(job(f"{fw}-{n}", 0.01), framework=fw) for fw in "ab" for n in (1, 2, 3)]
    last = replace(job("c-1", 0.01), framework="c")
    Scheduler(executor, Inventory(0), jobs=2).run([*first, last])
    # Both slots start at once, each with a framework of its own (two kernels start side
    # by side); the rest keep their order.
    assert executor.expected == ["a-1", "b-1", "a-2", "a-3", "b-2", "b-3", "c-1"]
    assert set(executor.order[:2]) == {"a-1", "b-1"}


def test_a_longer_job_waits_for_a_slots_first_job_of_another_framework() -> None:
    jobs = [job("middle", 0.02), job("long", 0.03), replace(job("short", 0.01), framework="b")]
    for slots, expected in ((1, ["long", "middle", "short"]), (2, ["long", "short", "middle"])):
        executor = SimulatedExecutor()
        Scheduler(executor, Inventory(0), jobs=slots).run(jobs)
        assert executor.expected == expected
    executor = SimulatedExecutor()  # one framework: longest first as ever
    Scheduler(executor, Inventory(0), jobs=2).run(jobs[:2])
    assert executor.expected == ["long", "middle"]


def test_untimed_jobs_keep_their_frameworks_order_and_run_more_code_cells_first() -> None:
    def untimed(name: str, framework: str, cells: int) -> Job:
        return replace(job(name, 0.0, *[0] * cells), framework=framework)

    jobs = [
        untimed("a-short", "a", 1),
        untimed("a-long", "a", 3),
        untimed("b-short", "b", 2),
        untimed("a-middle", "a", 2),
        untimed("b-long", "b", 4),
        job("timed", 0.01),
    ]
    executor = SimulatedExecutor()
    Scheduler(executor, Inventory(0), jobs=1).run(jobs)
    assert executor.expected == ["timed", "a-long", "a-middle", "a-short", "b-long", "b-short"]


def test_longest_first_within_the_job_limit_on_a_cpu_host() -> None:
    executor = SimulatedExecutor()
    jobs = [job("short", 0.01), job("long", 0.2), job("middle", 0.1)]
    results = Scheduler(executor, Inventory(0), jobs=2).run(jobs)
    assert executor.order[:2] == ["long", "middle"]
    assert executor.expected == ["long", "middle", "short"]  # told first, in that order
    assert executor.max_running == 2
    assert all(r.gpus == () for r in results)


def test_never_two_notebooks_on_one_gpu() -> None:
    executor = SimulatedExecutor()
    jobs = [job(f"nb{i}", 0.05) for i in range(6)]
    Scheduler(executor, Inventory(gpus=2), jobs=8).run(jobs)
    assert executor.max_running == 2
    for busy in executor.overlaps:
        assert len(busy) == len(set(busy))


def test_sharing_a_gpu_when_configured() -> None:
    executor = SimulatedExecutor()
    jobs = [job(f"nb{i}", 0.05) for i in range(4)]
    Scheduler(executor, Inventory(gpus=1, share=2), jobs=8).run(jobs)
    assert executor.max_running == 2


def test_a_two_gpu_notebook_gets_two_gpus_and_waits_for_them() -> None:
    executor = SimulatedExecutor()
    jobs = [job("pair", 0.05, 0, 2), job("a", 0.1), job("b", 0.1)]
    results = {r.job.path: r for r in Scheduler(executor, Inventory(gpus=2), jobs=4).run(jobs)}
    assert results["pair"].gpus == (0, 1)
    assert len(results["a"].gpus) == 1
    for busy in executor.overlaps:
        assert len(busy) == len(set(busy)) <= 2


def test_a_cluster_runs_a_notebook_per_gpu_of_all_its_hosts() -> None:
    executor = SimulatedExecutor()
    jobs = [job(f"nb{i}", 0.05) for i in range(8)]
    Scheduler(executor, Inventory(gpus=1, pool=4), jobs=8).run(jobs)
    assert executor.max_running == 4  # four one-GPU hosts
    assert gpus_needed(notebook(2), Inventory(gpus=1, pool=4)) == 1  # no host has two


def test_cells_needing_more_than_the_host_has_do_not_block_the_notebook() -> None:
    assert gpus_needed(notebook(0, 4), Inventory(gpus=2)) == 1
    assert gpus_needed(notebook(2), Inventory(gpus=2)) == 2
    assert gpus_needed(notebook(2), Inventory(gpus=0)) == 0


def test_an_interrupt_cancels_the_executor() -> None:
    cancelled = threading.Event()

    class Interrupting(SimulatedExecutor):
        def submit(self, job: Job) -> Future[JobResult]:
            raise KeyboardInterrupt

        def cancel(self) -> None:
            cancelled.set()

    with pytest.raises(KeyboardInterrupt):
        Scheduler(Interrupting(), Inventory(0), jobs=1).run([job("x", 0.01)])
    assert cancelled.is_set()


def test_kernels_see_only_the_gpus_they_were_given() -> None:
    from polybook.execution.kernels.launch import kernel_environ

    base = KernelEnv("pytorch", "k", (), Path("."), pythonpath=("/lib",))
    on_gpu_host = kernel_environ(replace(base, host_gpus=4, visible_gpus=(1, 3)))
    assert on_gpu_host["CUDA_VISIBLE_DEVICES"] == "1,3"
    assert on_gpu_host["PYTHONPATH"] == "/lib"
    cpu_only = kernel_environ(base)
    assert cpu_only.get("CUDA_VISIBLE_DEVICES") == os.environ.get("CUDA_VISIBLE_DEVICES")
