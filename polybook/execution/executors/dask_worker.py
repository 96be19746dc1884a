"""The worker side of the Dask executor: what ``polybook worker`` declares, and the task that
runs one job there (:mod:`polybook.execution.executors.remote_job`: the same worker code as
a local build).

A Dask worker declares its GPUs (resource ``GPU=N``) and one resource per framework
environment it has set up (``polybook-env-<framework>-<identity>``), so a job only lands
where its environment is. The task still checks, and refuses a job whose environment differs.
It lays the job folder out in a temporary folder (the library snapshot on ``PYTHONPATH``,
the book's resources beside the page), runs it in a ``python -m
polybook.execution.executors.local_worker`` process, and hands the result back to the client,
which writes the cache and the outputs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from polybook.config.schema.executors import DaskSection
from polybook.diagnostics import Location, PolybookError
from polybook.environments import devices
from polybook.execution.executors.remote_job import ready_environments, run_job, worker_envs
from polybook.layout import ENVS_VARIABLE

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
    settings: DaskSection, nthreads: int = 0, envs_dir: str = "", gpus: int | None = None
) -> int:
    """``polybook worker``: become a Dask worker of the scheduler of ``settings`` (its
    ``[executor-dask]``, from the command line or the book's; never returns)."""
    scheduler = settings.scheduler
    if not scheduler:
        message = (
            "polybook worker needs the Dask scheduler: `--scheduler tcp://HOST:PORT`, or"
            " `[executor-dask] scheduler` in the config.ini of the book it runs in"
        )
        raise PolybookError(Location("[executor-dask] scheduler"), message, "cli")
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


def run_remote(payload: Mapping[str, Any], resources: Mapping[str, bytes]) -> dict[str, Any]:
    """The Dask task of one job: run it on this worker (:func:`remote_job.run_job`) and
    return its files."""
    from distributed import get_worker

    worker = get_worker()
    key = worker.get_current_task()

    def stop() -> bool:
        task = worker.state.tasks.get(key)
        return task is None or task.state not in ("executing", "long-running")

    total = int(worker.state.total_resources.get(GPU, 0))
    slots, folder = int(worker.state.nthreads), Path(worker.local_directory)
    return run_job(payload, resources, worker.address, total, slots, folder, stop, _host_environ())


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
