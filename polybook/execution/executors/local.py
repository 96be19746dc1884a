"""The local executor: a few long-lived worker processes, each running one notebook at a time.

A worker (``python -m polybook.execution.executors.local_worker``) reads job folders from its
stdin and answers ``done`` once it has written the result there; it survives failing cells,
timeouts and dying kernels, so only its first job pays for its start. Cancelling sends SIGTERM
to every worker, which shuts its kernel down first.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

from polybook.diagnostics import Diagnostic, Location
from polybook.environments import devices
from polybook.environments.gpu_info import gpu_info
from polybook.execution.executors.local_worker import PROGRESS
from polybook.execution.executors.protocol import ExecutorSetup
from polybook.execution.gpu_share import planned_share
from polybook.execution.jobs import Failure, Inventory, Job, JobResult
from polybook.execution.kernels import head_start
from polybook.execution.kernels.cell_errors import exit_status
from polybook.execution.kernels.cell_log import last_started
from polybook.execution.kernels.launch import KernelEnv, zygote_spec
from polybook.execution.kernels.zygote_pool import ZygotePool, ZygoteSpec
from polybook.nb import reads, writes
from polybook.parallel import usable_cpus

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection


class WorkerProcess:
    """One worker process: jobs go in on its stdin, answers come back on a pipe of their own
    (its stdout and stderr go to its log, where a kernel's stray writes land harmlessly)."""

    def __init__(self, log: Path, environ: Mapping[str, str] | None = None) -> None:
        self.log = log
        read_fd, write_fd = os.pipe()
        try:
            with open(log, "ab") as handle:
                self.proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "polybook.execution.executors.local_worker",
                        str(write_fd),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=handle,
                    stderr=handle,
                    pass_fds=(write_fd,),
                    start_new_session=True,
                    text=True,
                    bufsize=1,
                    env=environ,
                )
        finally:
            os.close(write_fd)
        self.answers: IO[str] = os.fdopen(read_fd, "r", encoding="utf-8")

    def run(self, job_dir: Path, stop: Callable[[], bool] | None = None) -> bool:
        """Hand over one job; False when the worker died on it, or was stopped because
        ``stop()`` (asked every half second) said so."""
        stdin: IO[str] | None = self.proc.stdin
        stdout = self.answers
        if stdin is None:
            return False
        try:
            stdin.write(f"{job_dir}\n")
            stdin.flush()
        except OSError:
            return False
        while stop is not None and not select.select([stdout], [], [], 0.5)[0]:
            if stop():
                self.close(5.0, signal.SIGTERM)
                return False
        return stdout.readline().strip() == "done"

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signum)

    def close_input(self) -> None:
        """No more jobs: the worker ends once the one in hand is done."""
        if self.proc.stdin:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def close(self, grace: float, signum: int | None = None) -> None:
        self.close_input()
        if signum is not None:
            self.signal(signum)
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.proc.wait()
        self.answers.close()


def create(book: Book, build: BuildSection, inventory: Inventory | None) -> ExecutorSetup:
    """``executor = local``: ``[build] jobs`` worker processes here, on the GPUs allotted
    to this build (``CUDA_VISIBLE_DEVICES``) unless ``inventory`` is given; the zygotes a
    cold build started ahead (:mod:`~polybook.execution.kernels.head_start`) its own."""
    zygotes = head_start.take(book.layout)
    local = LocalExecutor(book.jobs, book.layout.work, zygotes=zygotes)
    if inventory is None:
        allotted = devices.allotment()
        memory = gpu_info().memory_mib if allotted.count and not build.gpu_share else 0
        share = planned_share(build.gpu_share, allotted.count, memory, usable_cpus())
        inventory = Inventory(allotted.count, share, devices=allotted.ids)
    return ExecutorSetup(local, inventory, book.jobs)


class LocalExecutor:
    """Runs jobs on this host, ``workers`` at a time."""

    on_this_host = True  # in this host's environments, beside the book's resources

    def __init__(
        self, workers: int, work_root: Path, grace: float = 5.0, zygotes: ZygotePool | None = None
    ) -> None:
        self.slots = max(1, workers)
        self.pool = ThreadPoolExecutor(max_workers=self.slots)
        self.work_root, self.grace = work_root, grace
        self.local = threading.local()
        self.workers: set[WorkerProcess] = set()
        self.spare: list[WorkerProcess] = []  # started ahead, not yet taken by a slot
        self.specs: dict[str, ZygoteSpec | None] = {}  # per KernelEnv (its JSON): its zygote
        self.lock = threading.Lock()
        self.cancelled = threading.Event()
        self.zygotes = zygotes  # one per framework environment, shared; made on first use
        self.left: Counter[ZygoteSpec] = Counter()  # expected jobs not yet done, per zygote
        self.released = threading.Event()  # set: the thread that started zygotes may end

    def expect(self, jobs: list[Job]) -> None:
        """Start the worker processes ``jobs`` need, and their zygotes one after another, in
        the jobs' order, in a thread of its own: a worker imports its client while the first
        zygotes import their frameworks, and while one framework's notebooks run, the next
        framework imports, so that no notebook waits for a start. A zygote ends after its
        last expected job."""
        self._start_workers(min(self.slots, len(jobs)))
        specs = [spec for spec in (self._spec(job.env) for job in jobs) if spec is not None]
        with self.lock:
            self.left.update(specs)
        if specs:
            args = (list(dict.fromkeys(specs)), self.released)  # each once, in order
            name = "polybook-zygotes"
            threading.Thread(target=self._warm, args=args, name=name, daemon=True).start()

    def _warm(self, specs: list[ZygoteSpec], released: threading.Event) -> None:
        pool = self._zygote_pool()
        for spec in specs:
            with self.lock:  # not for jobs done already, nor once the build ends
                wanted = self.left[spec] > 0 and not released.is_set()
            if wanted and not self.cancelled.is_set():
                pool.socket_for(spec)
        released.wait()  # what a thread starts gets the parent-death signal as it ends

    def _zygote_pool(self) -> ZygotePool:
        with self.lock:
            self.zygotes = self.zygotes or ZygotePool()
            return self.zygotes

    def _done_with(self, spec: ZygoteSpec | None) -> None:
        """One expected job of ``spec``'s zygote is done; the last one ends the zygote."""
        with self.lock:
            if spec is None or not self.left[spec]:
                return
            self.left[spec] -= 1
            last, zygotes = not self.left[spec], self.zygotes
        if last and zygotes is not None:
            zygotes.release(spec)

    def _spec(self, env: KernelEnv) -> ZygoteSpec | None:
        """The zygote of ``env``'s kernels (see :func:`_spec`), its kernelspec read once."""
        key = env.to_json()
        with self.lock:
            if key in self.specs:
                return self.specs[key]
        spec = _spec(env)
        with self.lock:
            self.specs[key] = spec
        return spec

    def submit(self, job: Job) -> Future[JobResult]:
        return self.pool.submit(self._run, job)

    def _start_workers(self, count: int) -> None:
        """Start workers until ``count`` exist, as spares for the slots to take."""
        with self.lock:
            missing = count - len(self.workers)
        for _ in range(missing):
            worker = self._new_worker()
            with self.lock:
                self.spare.append(worker)

    def _new_worker(self) -> WorkerProcess:
        self.work_root.mkdir(parents=True, exist_ok=True)
        worker = WorkerProcess(self.work_root / f"worker-{uuid.uuid4().hex[:8]}.log")
        with self.lock:
            self.workers.add(worker)
        return worker

    def _worker(self) -> WorkerProcess:
        """The worker of this slot: its own, else a spare, else a new one."""
        worker: WorkerProcess | None = getattr(self.local, "worker", None)
        if worker is None or worker.proc.poll() is not None:
            with self.lock:
                worker = self.spare.pop(0) if self.spare else None
            if worker is None or worker.proc.poll() is not None:
                worker = self._new_worker()
            self.local.worker = worker
        return worker

    def _run(self, job: Job) -> JobResult:
        if self.cancelled.is_set():
            return JobResult(job, "cancelled")
        self.work_root.mkdir(parents=True, exist_ok=True)
        job_dir = Path(tempfile.mkdtemp(prefix=f"{uuid.uuid4().hex[:8]}-", dir=self.work_root))
        spec = self._spec(job.env)
        try:
            return self._run_in(job, job_dir, spec)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
            self._done_with(spec)

    def _run_in(self, job: Job, job_dir: Path, spec: ZygoteSpec | None) -> JobResult:
        started = time.monotonic()
        env = job.env
        worker = self._worker()  # started before its zygote is waited for
        if spec is not None:  # the socket of its zygote, which it may wait for
            env = replace(env, zygote=self._zygote_pool().socket_for(spec))
        (job_dir / "env.json").write_text(env.to_json(), encoding="utf-8")
        (job_dir / "in.ipynb").write_text(writes(job.notebook), encoding="utf-8")
        alive = worker.run(job_dir)
        seconds = time.monotonic() - started
        if self.cancelled.is_set():
            return JobResult(job, "cancelled", seconds=seconds)
        result_file = job_dir / "result.json"
        if not alive or not result_file.is_file():
            self.local.worker = None
            lost = lost_worker(job.path, job.framework, job_dir, worker)
            return JobResult(job, "crashed", None, seconds, lost)
        return _result(job, job_dir)

    def cancel(self) -> None:
        self.cancelled.set()
        with self.lock:
            workers = list(self.workers)
        for worker in workers:
            worker.signal(signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for worker in workers:
            try:
                worker.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.signal(signal.SIGKILL)
        self._close_zygotes()  # the kernels they forked end with them

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)
        with self.lock:
            workers = list(self.workers)
            self.workers.clear()
            self.spare.clear()
        for worker in workers:  # each ends on the end of its input: all end side by side
            worker.close_input()
        for worker in workers:
            worker.close(self.grace)
        self._close_zygotes()

    def _close_zygotes(self) -> None:
        with self.lock:
            zygotes, self.zygotes = self.zygotes, None
            released, self.released = self.released, threading.Event()
        if zygotes is not None:
            zygotes.close()
        released.set()


def _spec(env: KernelEnv) -> ZygoteSpec | None:
    """The zygote of ``env``'s kernels; None where they start as usual."""
    if not env.fork:
        return None
    try:
        return zygote_spec(env)
    except Exception:  # no kernelspec to read: the worker reports it as it starts
        return None


LOG_TAIL = 600  # characters of a lost worker's log shown


def lost_worker(path: str, framework: str, job_dir: Path, worker: WorkerProcess) -> Diagnostic:
    """Why a worker was lost and where: at the cell it was running (see
    :class:`~polybook.execution.kernels.cell_log.CellLog`), how the process ended, the end of its
    log."""
    where = last_started(job_dir / PROGRESS) or Location(path, 0, framework)
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.proc.wait(timeout=5.0)
    ended = exit_status(worker.proc) or "it stopped answering"
    message = f"the worker process running the notebook was lost: {ended}"
    tail = worker.log.read_text(errors="replace").strip()[-LOG_TAIL:]
    if tail:
        message += f"; its log ends:\n{tail}"
    return Diagnostic(where, message, "exec.worker", "error")


def _result(job: Job, job_dir: Path) -> JobResult:
    return job_result(
        job,
        (job_dir / "result.json").read_text(encoding="utf-8"),
        (job_dir / "out.ipynb").read_text(encoding="utf-8"),
        job.env.visible_gpus,
    )


def job_result(
    job: Job, result_json: str, notebook: str, gpus: tuple[int, ...], host_gpus: int | None = None
) -> JobResult:
    """The result of a job from what the worker wrote: ``result.json`` and ``out.ipynb``."""
    result = json.loads(result_json)
    error = Diagnostic.from_json(result["error"]) if "error" in result else None
    failure = Failure.from_json(result["failure"]) if "failure" in result else None
    return JobResult(
        job,
        result["status"],
        reads(notebook),
        float(result["seconds"]),
        error,
        gpus,
        failure,
        host_gpus,
    )
