"""The Dask executor: jobs run as tasks on the workers of a ``distributed`` cluster.

Our :class:`~polybook.execution.scheduler.Scheduler` still decides the order and how many
GPUs a job holds; each job asks Dask for ``GPU=n`` and for its environment's resource, so it
lands on a worker that has both (:mod:`polybook.execution.executors.dask_worker`). A job
carries what is not on the worker: its notebook, the library snapshot it imports and the
book's resources (sent to each worker once). Results come back here, where the build writes
the cache and the outputs; no shared filesystem is needed.

A worker lost mid-job: the job is re-run on another (the scheduler is told to allow one
failure per task); a second loss is reported at the notebook.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import uuid
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.config import Book
from polybook.diagnostics import Diagnostic, Location, PolybookError
from polybook.execution.executors.dask_worker import GPU, env_resource, run_remote
from polybook.execution.executors.local import job_result
from polybook.execution.executors.protocol import ExecutorSetup
from polybook.execution.jobs import Inventory, Job, JobResult
from polybook.execution.resources import resource_files
from polybook.nb import writes

if TYPE_CHECKING:
    from polybook.config.schema import BuildSection
    from polybook.config.schema.executors import DaskSection

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler
HERE = Location("[executor-dask] scheduler")


def _allow_one_failure(dask_scheduler: Any) -> None:
    """Runs on the scheduler: a task whose worker dies is re-run once, then fails."""
    dask_scheduler.allowed_failures = min(dask_scheduler.allowed_failures, 1)


def _bundle(files: dict[str, bytes]) -> dict[str, bytes]:
    """Runs on a worker: the book's resources, fetched from there by each job's worker."""
    return files


def resource_bundle(book: Book, resources: tuple[str, ...]) -> dict[str, bytes]:
    """The files of ``resources`` (``[build] resources``) but the library (each job brings
    its snapshot)."""
    return {name: path.read_bytes() for name, path in resource_files(book, resources).items()}


def _library(job: Job) -> dict[str, bytes]:
    """The library snapshot the job's kernel imports (its ``PYTHONPATH`` folders)."""
    files: dict[str, bytes] = {}
    for folder in map(Path, job.env.pythonpath):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files.setdefault(path.relative_to(folder).as_posix(), path.read_bytes())
    return files


def create(
    book: Book, build: BuildSection, inventory: Inventory | None, settings: DaskSection
) -> ExecutorSetup:
    """``executor = dask``: the cluster at ``[executor-dask] scheduler``, its devices unless
    given, its workers' threads at once unless ``[build] jobs`` says."""
    if not settings.scheduler:
        message = (
            "executor = dask needs the scheduler's address: `[executor-dask] scheduler ="
            " tcp://HOST:PORT`, or `--scheduler tcp://HOST:PORT`"
        )
        raise PolybookError(HERE, message, "exec.dask")
    dask = DaskExecutor(settings.scheduler, resource_bundle(book, build.resources))
    return ExecutorSetup(dask, inventory or dask.inventory(), build.jobs or dask.slots())


class DaskExecutor:
    """Runs jobs on the cluster whose scheduler is at ``address``."""

    on_this_host = False  # the workers hold the environments and the book's resources

    def __init__(
        self, address: str, resources: Mapping[str, bytes], timeout: float = CONNECT_TIMEOUT
    ) -> None:
        from distributed import Client

        self.address = address
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            message = f"cannot reach the Dask scheduler at {address}: {exc}"
            raise PolybookError(HERE, message, "exec.dask") from None
        try:  # a cluster just started: its workers may still be joining
            self.client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            self.client.close()
            message = (
                f"the Dask scheduler at {address} has no workers: start `polybook worker "
                f"--scheduler {address}` on a worker host"
            )
            raise PolybookError(HERE, message, "exec.dask") from None
        with contextlib.suppress(Exception):  # a scheduler may refuse to run code
            self.client.run_on_scheduler(_allow_one_failure)
        digest = hashlib.sha256()
        for name in sorted(resources):
            digest.update(name.encode() + b"\0" + hashlib.sha256(resources[name]).digest())
        self.resources_digest = digest.hexdigest()
        # A task, not scattered data: a worker lost with it, another one makes it again.
        self.bundle = self.client.submit(
            _bundle, dict(resources), key=f"polybook-resources-{digest.hexdigest()[:16]}"
        )
        with contextlib.suppress(Exception):  # on every worker: jobs go where a thread is free
            self.client.replicate([self.bundle])
        self.lock = threading.Lock()
        self.running: dict[str, Any] = {}
        self.cancelled = threading.Event()
        self.workers = self._workers()

    def _workers(self) -> dict[str, dict[str, Any]]:
        info: dict[str, dict[str, Any]] = dict(self.client.scheduler_info()["workers"])
        return info

    def inventory(self) -> Inventory:
        """The cluster's devices: the most GPUs of one worker, and all of them together
        (each job holds whole GPUs: Dask counts them)."""
        gpus = [int(w.get("resources", {}).get(GPU, 0)) for w in self.workers.values()]
        return Inventory(max(gpus, default=0), 1, sum(gpus))

    def slots(self) -> int:
        """Jobs the cluster runs at once: its workers' threads."""
        return sum(int(w.get("nthreads", 1)) for w in self.workers.values())

    def _placeable(self, needs: Mapping[str, float]) -> bool:
        def fits(worker: dict[str, Any]) -> bool:
            held = worker.get("resources", {})
            return all(held.get(name, 0) >= amount for name, amount in needs.items())

        if any(fits(w) for w in self.workers.values()):
            return True
        self.workers = self._workers()  # a worker may have joined since
        return any(fits(w) for w in self.workers.values())

    def expect(self, jobs: list[Job]) -> None:
        """Nothing: each worker starts its environments' zygotes on its first job of each."""

    def submit(self, job: Job) -> Future[JobResult]:
        done: Future[JobResult] = Future()
        needs = {env_resource(job.framework, job.identity): 1.0}
        if job.env.visible_gpus:
            needs[GPU] = float(len(job.env.visible_gpus))
        if self.cancelled.is_set():
            done.set_result(JobResult(job, "cancelled"))
            return done
        if not self._placeable(needs):
            done.set_result(self._no_worker(job, needs))
            return done
        payload = {
            "path": job.path,
            "framework": job.framework,
            "identity": job.identity,
            "notebook": writes(job.notebook),
            "extra_env": dict(job.env.extra_env),
            "timeout": job.env.timeout,
            "fork": job.env.fork,
            "figure_format": job.env.figure_format,
            "gpus": len(job.env.visible_gpus),
            "library": _library(job),
            "resources_digest": self.resources_digest,
        }
        key = f"polybook-{job.framework}-{job.path}-{uuid.uuid4().hex[:8]}"
        task = self.client.submit(
            run_remote, payload, self.bundle, key=key, resources=needs, pure=False
        )
        with self.lock:
            self.running[key] = task

        def finished(task: Any) -> None:
            try:
                result = self._result(job, task)
            except BaseException as exc:  # the build waits on this future: always answer
                result = self._crashed(job, f"the Dask task failed: {type(exc).__name__}: {exc}")
            with self.lock:
                self.running.pop(key, None)
            done.set_result(result)

        task.add_done_callback(finished)
        return done

    def _no_worker(self, job: Job, needs: Mapping[str, float]) -> JobResult:
        gpus = int(needs.get(GPU, 0))
        with_gpus = f" and {gpus} GPU{'s' if gpus > 1 else ''}" if gpus else ""
        message = (
            f"no worker of the Dask cluster at {self.address} has the {job.framework} "
            f"environment {job.identity[:12]}{with_gpus}: on a worker host, run `polybook env "
            f"setup --tab {job.framework}` with the same polybook, then `polybook worker`"
        )
        where = Location(job.path, 0, job.framework)
        return JobResult(job, "error", error=Diagnostic(where, message, "exec.dask", "error"))

    def _crashed(self, job: Job, message: str, subtype: str = "exec.dask") -> JobResult:
        where = Location(job.path, 0, job.framework)
        return JobResult(job, "crashed", error=Diagnostic(where, message, subtype, "error"))

    def _result(self, job: Job, task: Any) -> JobResult:
        from distributed import KilledWorker

        if task.status == "cancelled":
            if self.cancelled.is_set():
                return JobResult(job, "cancelled")
            return self._crashed(job, f"the Dask scheduler at {self.address} dropped the job")
        if task.status == "error":
            exc = task.exception()
            if isinstance(exc, KilledWorker):
                message = "the Dask worker running it was lost twice (the job ran on two workers)"
                return self._crashed(job, message, "exec.worker")
            return self._crashed(job, f"the Dask task failed: {type(exc).__name__}: {exc}")
        answer: dict[str, Any] = task.result()
        status = answer["status"]
        if status == "ran":
            gpus = tuple(int(g) for g in answer.get("gpus", ()))
            return job_result(
                job, answer["result"], answer["notebook"], gpus, int(answer["host_gpus"])
            )
        if status == "stopped" or self.cancelled.is_set():
            return JobResult(job, "cancelled")
        if status == "refused":
            where = Location(job.path, 0, job.framework)
            error = Diagnostic(where, answer["message"], "exec.dask", "error")
            return JobResult(job, "error", error=error)
        lost = Diagnostic.from_json(answer["error"])
        message = f"on {answer.get('worker', '')}: {lost.message}"
        return JobResult(job, "crashed", error=replace(lost, message=message))

    def cancel(self) -> None:
        """Cancel every job on the cluster; workers stop their kernels."""
        self.cancelled.set()
        with self.lock:
            tasks = list(self.running.values())
        if tasks:
            with contextlib.suppress(Exception):
                self.client.cancel(tasks, force=True)

    def shutdown(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
