"""Building on a Dask cluster: a real ``distributed.LocalCluster`` of two worker processes on
loopback, declaring what ``polybook worker`` declares, running real kernels."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from subprocess import PIPE
from typing import Any

import dask
import pytest
from distributed import Client, LocalCluster

from polybook.commands.cli import main
from polybook.execution.executors.dask import DaskExecutor
from polybook.execution.executors.dask_worker import (
    ENV_PREFIX,
    WORKER_CONFIG,
    run_remote,
    worker_resources,
)
from polybook.execution.executors.remote_job import ready_environments
from polybook.execution.jobs import Job
from polybook.execution.kernels.launch import KernelEnv
from polybook.nb import new_code_cell, new_notebook, reads, writes

from ..books import cells_book
from ..books import copy_fixture as copy_book

pytestmark = pytest.mark.slow


def local_cluster(workers: int, resources: dict[str, float]) -> LocalCluster:
    """Worker processes on loopback declaring ``resources``, with no dashboard."""
    return LocalCluster(
        n_workers=workers,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=":0",
        resources=resources,
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    # A killed worker's nanny starts a new one; the cluster must not give up on it first.
    # The nannies set their workers' environment (one BLAS thread) in this process's: it is
    # put back after, so that later tests' kernels get their own thread caps.
    saved = dict(os.environ)
    try:
        with (
            dask.config.set({**WORKER_CONFIG, "distributed.deploy.lost-worker-timeout": "600s"}),
            local_cluster(2, worker_resources()) as local,
        ):
            yield local
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster.scheduler_address, set_as_default=False) as connected:
        connected.wait_for_workers(2, timeout=60)
        yield connected


def build(root: Path, *args: str) -> int:
    return main(["--quiet", "--root", str(root), "build", "eval", *args])


def on_cluster(cluster: LocalCluster) -> tuple[str, ...]:
    return ("--executor", "dask", "--scheduler", cluster.scheduler_address)


# Where a page ran: ``_build/eval/<framework>/`` here, ``…/polybook-job-*/book/<framework>/``
# in a job folder on a worker.
RAN_IN = re.compile(r'[^\s"]*/(?:_build/eval|polybook-job-[^/\s"]+/book)/')


def outputs(root: Path) -> dict[str, Any]:
    """Each executed notebook's code cells and outputs (timings and addresses aside)."""
    found = {}
    for path in sorted((root / "_build" / "eval").rglob("*.ipynb")):
        nb = reads(path.read_text())
        cells = [(c.source, c.outputs) for c in nb.cells if c.cell_type == "code"]
        text = RAN_IN.sub("EVAL/", json.dumps(cells, sort_keys=True))
        found[path.relative_to(root).as_posix()] = json.loads(text)
    return found


def test_a_cluster_build_equals_a_local_build(tmp_path: Path, cluster: LocalCluster) -> None:
    local = copy_book(tmp_path / "local")
    remote = copy_book(tmp_path / "remote")
    assert build(local) == 0
    report = tmp_path / "report.json"
    assert build(remote, *on_cluster(cluster), "--report", str(report)) == 0
    assert len(json.loads(report.read_text())["ran"]) == 8
    assert outputs(remote) == outputs(local)
    nb = reads((remote / "_build/eval/jax/chap/more.ipynb").read_text())
    assert nb.metadata["polybook"]["run"]["framework_version"].startswith("jax ")


def wait_for(condition: Callable[[], Any], seconds: float = 120) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting")
        time.sleep(0.1)
    return found


def running(client: Client, page: str, elsewhere_than: str = "") -> str:
    """The address of the worker running ``page``'s job ("" when none is)."""
    for address, keys in client.processing().items():
        if address != elsewhere_than and any(page in str(key) for key in keys):
            return str(address)
    return ""


def kill(client: Client, address: str) -> None:
    pid = client.run(os.getpid, workers=[address])[address]
    os.kill(pid, signal.SIGKILL)


Start = Callable[[Path, Path], "subprocess.Popen[str]"]


@pytest.fixture
def start(cluster: LocalCluster) -> Iterator[Start]:
    """Starts ``polybook build eval`` on the cluster in a process; stops what is left."""
    started: list[subprocess.Popen[str]] = []

    def launch(root: Path, report: Path) -> subprocess.Popen[str]:
        command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root)]
        command += ["build", "eval", *on_cluster(cluster), "--report", str(report)]
        started.append(subprocess.Popen(command, stdout=PIPE, stderr=PIPE, text=True))
        return started[-1]

    yield launch
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate()


def test_a_worker_lost_mid_job_the_job_runs_elsewhere(
    tmp_path: Path, client: Client, start: Start
) -> None:
    pages = {"slow": "import time\ntime.sleep(8)\nprint('slept')", "quick": "print('quick')"}
    root = cells_book(tmp_path / "book", pages)
    report = tmp_path / "report.json"
    build_process = start(root, report)
    first = wait_for(lambda: running(client, "slow.md"))
    time.sleep(3)  # its kernel is in the cell
    kill(client, first)
    _, err = build_process.communicate(timeout=300)
    assert build_process.returncode == 0, err
    assert {r[0] for r in json.loads(report.read_text())["ran"]} == {"slow.md", "quick.md"}
    assert "slept" in (root / "_build/eval/pytorch/slow.ipynb").read_text()


def test_a_job_whose_worker_is_lost_twice_is_reported_at_its_notebook(
    tmp_path: Path, client: Client, start: Start
) -> None:
    root = cells_book(tmp_path / "book", {"doomed": "import time\ntime.sleep(60)"})
    build_process = start(root, tmp_path / "report.json")
    first = wait_for(lambda: running(client, "doomed.md"))
    time.sleep(2)
    kill(client, first)
    second = wait_for(lambda: running(client, "doomed.md", elsewhere_than=first))
    time.sleep(2)
    kill(client, second)
    _, err = build_process.communicate(timeout=300)
    assert build_process.returncode == 1
    assert "doomed.md [pytorch]: the Dask worker running it was lost twice" in err
    assert "[polybook.exec.worker]" in err


def kernels() -> int:
    """Processes (kernels) working in a job folder of a Dask worker: on this host, the
    cluster's."""
    found = 0
    for proc in Path("/proc").iterdir():
        try:
            found += "/polybook-job-" in os.readlink(proc / "cwd")
        except OSError:
            continue
    return found


def test_an_interrupt_cancels_the_cluster_jobs(
    tmp_path: Path, client: Client, start: Start
) -> None:
    root = cells_book(tmp_path / "book", {"stuck": "import time\ntime.sleep(600)"})
    build_process = start(root, tmp_path / "report.json")
    wait_for(lambda: running(client, "stuck.md"))
    wait_for(lambda: kernels() > 0)
    time.sleep(1)
    build_process.send_signal(signal.SIGINT)
    _, err = build_process.communicate(timeout=60)
    assert build_process.returncode == 130, err
    wait_for(lambda: not running(client, "stuck.md") and kernels() == 0, 30)


def job(identity: str) -> Job:
    nb = new_notebook()
    nb.cells = [new_code_cell("print(1)", "c0")]
    nb.metadata["polybook"] = {"source": "page.md", "framework": "pytorch"}
    env = KernelEnv("pytorch", "polybook-pytorch", (), Path("."))
    return Job("page.md", "pytorch", "key", nb, env, identity=identity)


def test_a_job_no_worker_can_run_is_an_error_naming_its_environment(
    cluster: LocalCluster,
) -> None:
    executor = DaskExecutor(cluster.scheduler_address, {})
    try:
        result = executor.submit(job("0" * 64)).result(timeout=60)
    finally:
        executor.shutdown()
    assert result.status == "error" and result.error is not None
    assert "has the pytorch environment 000000000000" in result.error.message
    assert "polybook env setup --tab pytorch" in result.error.message


def test_a_worker_refuses_a_job_for_another_environment(client: Client) -> None:
    payload = {
        "path": "page.md",
        "framework": "pytorch",
        "identity": "0" * 64,
        "notebook": writes(job("").notebook),
    }
    answer = client.submit(run_remote, payload, {}, pure=False).result(timeout=60)
    assert answer["status"] == "refused"
    assert "its pytorch environment has identity" in answer["message"]
    assert "the job needs 000000000000" in answer["message"]


def test_an_unreachable_scheduler_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = cells_book(tmp_path / "book", {"page": "print(1)"})
    assert build(root, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9") == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err


def test_polybook_worker_joins_a_dask_scheduler_declaring_its_environments(
    tmp_path: Path,
) -> None:
    info = tmp_path / "scheduler.json"
    command = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
    command += ["--port", "0", "--no-dashboard", "--scheduler-file", str(info)]
    scheduler = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    worker = None
    try:
        wait_for(info.is_file, 60)
        address = json.loads(wait_for(info.read_text, 60))["address"]
        polybook = [sys.executable, "-m", "polybook", "worker", "--scheduler", address]
        worker = subprocess.Popen([*polybook, "--nthreads", "1"], stderr=subprocess.DEVNULL)
        with Client(address, set_as_default=False) as connected:
            connected.wait_for_workers(1, timeout=60)
            (declared,) = (w["resources"] for w in connected.scheduler_info()["workers"].values())
            configured = connected.run(lambda: dask.config.get("distributed.worker.profile"))
        assert [c["enabled"] for c in configured.values()] == [False]
        expected = {k: v for k, v in worker_resources().items() if k.startswith(ENV_PREFIX)}
        assert expected and {k: v for k, v in declared.items() if k in expected} == expected
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def test_a_framework_the_book_declares_runs_on_workers_that_set_it_up(tmp_path: Path) -> None:
    """Workers know no book: they declare every environment set up on their host, a book's
    own framework (with the book's packages) too, under the identity it was set up with."""
    root = copy_book(tmp_path / "book", "fifth_book")
    config = root / "config.ini"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("[build]\n", "[build]\nrequirements = numpy:requirements/extra.txt\n", 1),
        encoding="utf-8",
    )
    page = root / "chapter_arrays" / "sums.md"
    cell = "\n```{.python .input}\n%%tab numpy\nimport tabulate\nprint(tabulate.__name__)\n```\n"
    page.write_text(page.read_text(encoding="utf-8") + cell, encoding="utf-8")
    assert main(["--quiet", "--root", str(root), "env", "setup", "--tab", "numpy"]) == 0
    ready_environments.cache_clear()
    resources = worker_resources()
    assert any(k.startswith(f"{ENV_PREFIX}numpy-") for k in resources)
    with dask.config.set(WORKER_CONFIG), local_cluster(1, resources) as cluster:
        assert build(root, "--tab", "numpy", *on_cluster(cluster)) == 0
    nb = reads((root / "_build/eval/numpy/chapter_arrays/sums.ipynb").read_text())
    shown = json.dumps([c.outputs for c in nb.cells if c.cell_type == "code"])
    assert "total: 10" in shown and "tabulate" in shown
    assert nb.metadata["polybook"]["run"]["framework_version"].startswith("numpy ")
