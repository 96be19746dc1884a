"""A job run on another host, whatever carries it there (a Dask task, another cluster's):
the framework environments set up on that host, the job's folder laid out as a local build
lays it out (the library snapshot on ``PYTHONPATH``, the book's resources beside the page),
the GPUs it takes, and the ``local_worker`` process that runs it. What carries the job hands
it a payload (:func:`run_job`) and takes back its files; the client writes the cache and the
outputs.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
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


class _Gpus:
    """This host's GPUs, handed to jobs whole (what carries the jobs counts them)."""

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
        f"the worker {where} refuses to run it: its {fw} environment {has}, the job needs "
        f"{expected[:12]} (the pins of the building polybook); run `polybook env setup --tab "
        f"{fw}` there with the same polybook"
    )


def run_job(
    payload: Mapping[str, Any],
    resources: Mapping[str, bytes],
    where: str,
    total: int,
    slots: int,
    folder: Path,
    stop: Callable[[], bool],
    environ: Mapping[str, str],
) -> dict[str, Any]:
    """One job run here, as a local build would, and its files: ``where`` names this
    worker, ``total`` its GPUs, ``slots`` the jobs it runs at once, ``folder`` its own,
    ``stop`` says the job was cancelled, ``environ`` is what its kernels see of the host."""
    fw = str(payload["framework"])
    held = ready_environments(os.environ.get(ENVS_VARIABLE, ""))
    env = held.get((fw, str(payload["identity"]))) or next(
        (e for (name, _), e in held.items() if name == fw), None
    )
    answer: dict[str, Any] = {"worker": where}
    if env is None or env.identity != payload["identity"]:
        return {**answer, "status": "refused", "message": _refusal(payload, env, where)}
    job_dir = Path(tempfile.mkdtemp(prefix="polybook-job-", dir=folder))
    try:
        with _GPUS.take(int(payload["gpus"]), total) as gpus:
            kernel = lay_out(job_dir, payload, resources, env, total, gpus, slots)
            process = _process(folder, environ)  # it imports while a zygote does
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


def lay_out(
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


def _process(folder: Path, environ: Mapping[str, str]) -> WorkerProcess:
    """This thread's worker process (started on its first job, kept for the next)."""
    process: WorkerProcess | None = getattr(_LOCAL, "process", None)
    if process is None or process.proc.poll() is not None:
        log = folder / f"polybook-worker-{uuid.uuid4().hex[:8]}.log"
        process = WorkerProcess(log, dict(environ))
        _LOCAL.process = process
    return process
