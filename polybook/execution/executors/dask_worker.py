"""The worker side of the Dask executor: what ``polybook worker`` declares, and the task that
runs one job there with the same worker code as a local build.

A Dask worker declares its GPUs (resource ``GPU=N``) and one resource per framework
environment it has set up (``polybook-env-<framework>-<identity>``), so a job only lands
where its environment is. The task still checks, and refuses a job whose environment differs.
It lays the job folder out in a temporary folder (the library snapshot on ``PYTHONPATH``,
the book's resources beside the page), runs it in a ``python -m
polybook.execution.executors.local_worker`` process, and hands the result back to the client,
which writes the cache and the outputs.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from polybook.environments import devices, venvs
from polybook.execution.executors.local import WorkerProcess, lost_worker
from polybook.execution.jobs import Inventory
from polybook.execution.kernels.launch import KernelEnv, zygote_spec
from polybook.execution.kernels.zygote_pool import ZygotePool
from polybook.fsutil import write_atomic
from polybook.layout import ENVS_DIR, ENVS_VARIABLE
from polybook.parallel import usable_cpus

GPU = "GPU"
ENV_PREFIX = "polybook-env-"
ENV_SLOTS = 1024  # an environment never limits how many jobs a worker runs at once
# Dask's defaults suit short tasks computed inside the worker; a polybook job waits minutes
# on a kernel process: no profiler, slower housekeeping (a tenth of an idle worker's CPU).
WORKER_CONFIG: dict[str, object] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def env_resource(framework: str, identity: str) -> str:
    """The Dask resource a worker holding this environment declares."""
    return f"{ENV_PREFIX}{framework}-{identity[:16]}"


@functools.cache
def ready_environments(envs_dir: str = "") -> dict[tuple[str, str], venvs.SetUpEnvironment]:
    """The framework environments set up on this host (any framework: a book's own too), by
    framework and identity, as they were when this process first looked: what a worker
    declared is what it holds."""
    found = venvs.set_up_environments(worker_envs(envs_dir))
    return {(env.framework, env.identity): env for env in found}


def worker_envs(envs_dir: str = "") -> Path:
    """A worker's folder of environments: ``--envs-dir``, else ``$POLYBOOK_ENVS``, else
    ``.envs`` in the folder it starts in (a book's)."""
    chosen = envs_dir or os.environ.get(ENVS_VARIABLE, "")
    return Path(chosen).expanduser().resolve() if chosen else Path.cwd() / ENVS_DIR


def worker_resources(envs_dir: str = "", gpus: int | None = None) -> dict[str, float]:
    """What ``polybook worker`` declares: ``GPU=N`` (when N > 0) and its environments."""
    count = devices.host_gpus() if gpus is None else gpus
    resources: dict[str, float] = {GPU: float(count)} if count else {}
    for fw, identity in ready_environments(envs_dir):
        resources[env_resource(fw, identity)] = float(ENV_SLOTS)
    return resources


def worker_command(
    scheduler: str, nthreads: int, resources: Mapping[str, float], name: str = ""
) -> list[str]:
    """``dask worker`` with polybook's resources: what ``polybook worker`` runs."""
    declared = ",".join(f"{k}={v:g}" for k, v in sorted(resources.items()))
    command = [sys.executable, "-m", "distributed.cli.dask_worker", scheduler]
    command += ["--nthreads", str(nthreads), "--nworkers", "1", "--no-dashboard"]
    if declared:
        command += ["--resources", declared]
    if name:
        command += ["--name", name]
    return command


def start_worker(
    scheduler: str, nthreads: int = 0, envs_dir: str = "", gpus: int | None = None
) -> int:
    """``polybook worker``: become a Dask worker of ``scheduler`` (never returns)."""
    resources = worker_resources(envs_dir, gpus)
    if not any(k.startswith(ENV_PREFIX) for k in resources):
        print(
            "polybook worker: no framework environment is set up on this host "
            "(`polybook env setup --tab NAME` sets one up)",
            file=sys.stderr,
        )
        return 1
    if envs_dir:
        os.environ[ENVS_VARIABLE] = str(worker_envs(envs_dir))
    for key, value in WORKER_CONFIG.items():  # Dask reads DASK_A__B_C as a.b-c
        os.environ.setdefault(
            "DASK_" + key.upper().replace(".", "__").replace("-", "_"), str(value)
        )
    command = worker_command(scheduler, nthreads or (os.cpu_count() or 1), resources)
    print(f"polybook worker: {' '.join(command[3:])}", file=sys.stderr, flush=True)
    os.execv(command[0], command)
    return 0  # not reached


class _Gpus:
    """This worker's GPUs, handed to jobs whole (Dask's ``GPU`` resource counts them)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.busy: set[int] = set()

    @contextlib.contextmanager
    def take(self, count: int, total: int) -> Iterator[tuple[int, ...]]:
        with self.lock:
            free = [g for g in range(total) if g not in self.busy]
            chosen = tuple(free[:count])
            self.busy |= set(chosen)
        try:
            yield chosen
        finally:
            with self.lock:
                self.busy -= set(chosen)


_GPUS = _Gpus()
_LOCAL = threading.local()
_RESOURCES_LOCK = threading.Lock()


def _unpacked(files: Mapping[str, bytes], digest: str, folder: Path) -> Path:
    """The book's resources, written once per worker (keyed by content)."""
    root = folder / "polybook-resources" / digest[:16]
    with _RESOURCES_LOCK:
        if not (root / ".complete").is_file():
            for name, data in files.items():
                write_atomic(root / name, data)
            write_atomic(root / ".complete", b"")
    return root


def _link_tree(source: Path, target: Path) -> None:
    """``target`` mirrors ``source``: its folders made, its files linked."""
    for path in source.rglob("*"):
        if path.name == ".complete" or path.is_dir():
            continue
        link = target / path.relative_to(source)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(path)


def _refusal(payload: Mapping[str, Any], env: venvs.SetUpEnvironment | None, where: str) -> str:
    fw, expected = payload["framework"], str(payload["identity"])
    has = f"has identity {env.identity[:12]}" if env else "is not set up"
    return (
        f"the Dask worker {where} refuses to run it: its {fw} environment {has}, the job needs "
        f"{expected[:12]} (the pins of the building polybook); run `polybook env setup --tab "
        f"{fw}` there with the same polybook"
    )


def run_remote(payload: Mapping[str, Any], resources: Mapping[str, bytes]) -> dict[str, Any]:
    """The Dask task of one job: run it here, as a local build would, and return its files."""
    from distributed import get_worker

    worker = get_worker()
    fw = str(payload["framework"])
    held = ready_environments(os.environ.get(ENVS_VARIABLE, ""))
    env = held.get((fw, str(payload["identity"]))) or next(
        (e for (name, _), e in held.items() if name == fw), None
    )
    answer: dict[str, Any] = {"worker": worker.address}
    if env is None or env.identity != payload["identity"]:
        return {**answer, "status": "refused", "message": _refusal(payload, env, worker.address)}
    key = worker.get_current_task()
    total = int(worker.state.total_resources.get(GPU, 0))

    def stop() -> bool:
        task = worker.state.tasks.get(key)
        return task is None or task.state not in ("executing", "long-running")

    job_dir = Path(tempfile.mkdtemp(prefix="polybook-job-", dir=worker.local_directory))
    try:
        with _GPUS.take(int(payload["gpus"]), total) as gpus:
            slots = int(worker.state.nthreads)
            kernel = _lay_out(job_dir, payload, resources, env, total, gpus, slots)
            process = _process(Path(worker.local_directory))  # it imports while a zygote does
            if kernel.fork:  # forked from this worker's zygote of the environment
                with contextlib.suppress(Exception):  # else it starts afresh
                    kernel = replace(kernel, zygote=_zygotes().socket_for(zygote_spec(kernel)))
                    write_atomic(job_dir / "env.json", kernel.to_json())
            answer.update(host_gpus=total, gpus=list(kernel.visible_gpus))
            if not process.run(job_dir, stop):
                _LOCAL.process = None
                if stop():
                    return {**answer, "status": "stopped"}
                lost = lost_worker(str(payload["path"]), fw, job_dir, process)
                return {**answer, "status": "died", "error": lost.to_json()}
            out = job_dir / "out.ipynb"
            result = job_dir / "result.json"
            return {
                **answer,
                "status": "ran",
                "result": result.read_text(encoding="utf-8"),
                "notebook": out.read_text(encoding="utf-8"),
            }
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)


def _lay_out(
    job_dir: Path,
    payload: Mapping[str, Any],
    resources: Mapping[str, bytes],
    env: venvs.SetUpEnvironment,
    total: int,
    gpus: tuple[int, ...],
    threads: int = 1,
) -> KernelEnv:
    """The job folder: library snapshot, resources beside the page, env.json, in.ipynb;
    ``threads``: jobs the worker runs at once (its kernels share the CPUs)."""
    fw = str(payload["framework"])
    for name, data in payload["library"].items():
        write_atomic(job_dir / "lib" / name, data)
    book = job_dir / "book" / fw
    if resources:
        unpacked = _unpacked(resources, str(payload["resources_digest"]), job_dir.parent)
        _link_tree(unpacked, book)
    cwd = book / Path(str(payload["path"])).parent
    cwd.mkdir(parents=True, exist_ok=True)
    kernel = KernelEnv(
        fw,
        env.kernel_name,
        (str(env.kernels_dir),),
        cwd,
        (str(job_dir / "lib"),),
        dict(payload["extra_env"]),
        int(payload["timeout"]),
        total,
        gpus,
        Inventory(total, devices=devices.allotment().ids).ids(gpus),
        threads=max(1, usable_cpus() // max(1, threads)),
        fork=bool(payload.get("fork", False)),
        figure_format=str(payload.get("figure_format", "svg")),
    )
    write_atomic(job_dir / "env.json", kernel.to_json())
    write_atomic(job_dir / "in.ipynb", str(payload["notebook"]))
    return kernel


@functools.cache
def _zygotes() -> ZygotePool:
    """This worker's zygotes, one per environment, for its life."""
    pool = ZygotePool()
    atexit.register(pool.close)
    return pool


def _host_environ() -> dict[str, str]:
    """This process's environment without what Dask's nanny set for its worker (one BLAS
    thread, a fixed hash seed): kernels see the host as a local build's kernels do."""
    import dask

    nanny = {
        str(k): str(v)
        for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()
    }
    nanny.setdefault("PYTHONHASHSEED", "6640")
    return {k: v for k, v in os.environ.items() if nanny.get(k) != v}


def _process(folder: Path) -> WorkerProcess:
    """This thread's worker process (started on its first job, kept for the next)."""
    process: WorkerProcess | None = getattr(_LOCAL, "process", None)
    if process is None or process.proc.poll() is not None:
        log = folder / f"polybook-worker-{uuid.uuid4().hex[:8]}.log"
        process = WorkerProcess(log, _host_environ())
        _LOCAL.process = process
    return process
