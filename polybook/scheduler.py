"""Runs notebook jobs: longest first, within a job limit and a device inventory.

The scheduler decides *what* runs *where*; an :class:`Executor` runs it. The local executor
starts one worker process per notebook; a distributed backend (Dask, Ray) implements the
same two methods.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from nbformat import NotebookNode

from .diagnostics import Diagnostic, Location
from .execute import KernelEnv
from .nb import reads, writes


@dataclass(frozen=True)
class Inventory:
    """The devices of a host: ``gpus`` GPUs, each shared by at most ``share`` notebooks."""

    gpus: int = 0
    share: int = 1


@dataclass(frozen=True)
class Job:
    """One notebook to execute."""

    path: str
    framework: str
    key: str
    notebook: NotebookNode
    env: KernelEnv
    expected: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.path} [{self.framework}]"


@dataclass
class JobResult:
    job: Job
    status: str  # ok | error | crashed | cancelled
    notebook: NotebookNode | None = None
    seconds: float = 0.0
    error: Diagnostic | None = None
    gpus: tuple[int, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)


class Executor(Protocol):
    """Runs a job somewhere and hands back its result."""

    def submit(self, job: Job) -> Future[JobResult]: ...

    def cancel(self) -> None:
        """Stop every job in flight (their futures end as ``cancelled``)."""


def gpus_needed(nb: NotebookNode, inventory: Inventory) -> int:
    """GPUs a notebook holds while it runs: what its runnable cells need; one at least on a
    GPU host (frameworks take the default GPU), none on a host without."""
    if inventory.gpus == 0:
        return 0
    needs = [
        int(c.metadata.get("polybook", {}).get("requires", {}).get("gpus", 0))
        for c in nb.cells
        if c.cell_type == "code"
    ]
    return max([1, *(n for n in needs if n <= inventory.gpus)])


class Scheduler:
    """Longest expected job first; a job starts when a slot and its GPUs are free."""

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
        pending = sorted(jobs, key=lambda j: -j.expected)
        load = [0] * self.inventory.gpus
        running: dict[Future[JobResult], tuple[int, ...]] = {}
        results: list[JobResult] = []
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
                    placed = replace(job, env=replace(job.env, visible_gpus=gpus, host_gpus=host))
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


class LocalExecutor:
    """Each job in a worker process of its own (``python -m polybook.worker``)."""

    def __init__(self, workers: int, work_root: Path, grace: float = 5.0) -> None:
        self.pool = ThreadPoolExecutor(max_workers=max(1, workers))
        self.work_root, self.grace = work_root, grace
        self.procs: set[subprocess.Popen[bytes]] = set()
        self.lock = threading.Lock()
        self.cancelled = threading.Event()

    def submit(self, job: Job) -> Future[JobResult]:
        return self.pool.submit(self._run, job)

    def _run(self, job: Job) -> JobResult:
        if self.cancelled.is_set():
            return JobResult(job, "cancelled")
        self.work_root.mkdir(parents=True, exist_ok=True)
        job_dir = Path(tempfile.mkdtemp(prefix=f"{uuid.uuid4().hex[:8]}-", dir=self.work_root))
        try:
            return self._run_in(job, job_dir)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)

    def _run_in(self, job: Job, job_dir: Path) -> JobResult:
        env = asdict(job.env)
        env["cwd"] = str(job.env.cwd)
        (job_dir / "job.json").write_text(json.dumps({"env": env}), encoding="utf-8")
        (job_dir / "in.ipynb").write_text(writes(job.notebook), encoding="utf-8")
        started = time.monotonic()
        with open(job_dir / "worker.log", "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "polybook.worker", str(job_dir)],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            with self.lock:
                self.procs.add(proc)
            try:
                code = proc.wait()
            finally:
                with self.lock:
                    self.procs.discard(proc)
        seconds = time.monotonic() - started
        if self.cancelled.is_set():
            return JobResult(job, "cancelled", seconds=seconds)
        result_file = job_dir / "result.json"
        if not result_file.is_file():
            tail = (job_dir / "worker.log").read_text(errors="replace").strip()[-600:]
            where = Location(job.path, 0, job.framework)
            message = f"the worker process exited with code {code}: {tail}"
            return JobResult(
                job, "crashed", None, seconds, Diagnostic(where, message, "exec", "error")
            )
        result = json.loads(result_file.read_text(encoding="utf-8"))
        nb = reads((job_dir / "out.ipynb").read_text(encoding="utf-8"))
        error = None
        if result["status"] != "ok":
            e = result["error"]
            where = Location(e["path"], e["line"], e["framework"], e["cell"])
            error = Diagnostic(where, e["message"], e["subtype"], "error")
        return JobResult(
            job,
            result["status"],
            nb,
            float(result["seconds"]),
            error,
            job.env.visible_gpus,
            result.get("error", {}),
        )

    def cancel(self) -> None:
        self.cancelled.set()
        with self.lock:
            procs = list(self.procs)
        for proc in procs:
            _signal(proc, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for proc in procs:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal(proc, signal.SIGKILL)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)


def _signal(proc: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signum)
