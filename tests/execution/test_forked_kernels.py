"""Kernels forked from a warm zygote: each notebook starts from a clean namespace (nothing
one notebook changes reaches the next), its framework already imported, its math libraries'
threads sized to its share of the CPUs; a notebook's outputs are the same whether its kernel
was forked or started afresh."""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.config.executors import EXECUTORS
from polybook.diagnostics import Reporter
from polybook.execution.executors.local import LocalExecutor
from polybook.execution.jobs import Job
from polybook.execution.kernels.head_start import head_start
from polybook.execution.kernels.launch import KernelEnv, zygote_spec
from polybook.execution.kernels.zygote_pool import ZygotePool
from polybook.execution.stage import build_eval
from polybook.nb import new_code_cell, new_notebook, reads
from polybook.parallel import usable_cpus
from polybook.pipeline.execution import BookEnvironments, execution

from ..books import build, cells_book, libraries, with_build
from ..environments import REPO_ENVS
from ..kernels import forked_pytorch, run_cell
from ..processes import alive

pytestmark = pytest.mark.slow

LEAKS = """import os, builtins, sys, torch
torch.leaked = 1
builtins.leaked = 2
os.environ["POLYBOOK_LEAKED"] = "3"
sys.path.append("/leaked")
leaked = 4"""
CHECKS = """import os, builtins, sys
print("torch already imported:", "torch" in sys.modules)
import torch
print(json.dumps({
    "module": hasattr(torch, "leaked"),
    "builtins": hasattr(builtins, "leaked"),
    "environ": "POLYBOOK_LEAKED" in os.environ,
    "path": "/leaked" in sys.path,
    "namespace": "leaked" in globals(),
    "threads": torch.get_num_threads(),
    "wait": os.environ.get("OMP_WAIT_POLICY"),
}))"""
SEEDED = """import torch, numpy as np
torch.manual_seed(0)
np.random.seed(0)
print(torch.randn(3), np.random.rand(2).round(6), torch.arange(6).reshape(2, 3).sum(0))"""


def outputs(root: Path, page: str) -> list[str]:
    nb = reads((root / "_build/eval/pytorch" / f"{page}.ipynb").read_text(encoding="utf-8"))
    return [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs]


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    built = {}
    for fork in ("true", "false"):
        root = cells_book(
            tmp_path_factory.mktemp(f"fork-{fork}") / "book",
            {"a_leaks": LEAKS, "b_checks": "import json\n" + CHECKS, "c_seeded": SEEDED},
        )
        config = root / "config.ini"
        text = config.read_text().replace("jobs = 2", "jobs = 1")
        config.write_text(text + f"fork_kernels = {fork}\n")
        assert build(root, "eval") == 0
        built[fork] = root
    return built


def test_a_forked_kernel_starts_clean_with_its_framework_imported(books: dict[str, Path]) -> None:
    imported, report = outputs(books["true"], "b_checks")[0].splitlines()
    assert imported == "torch already imported: True"
    assert json.loads(report) == {
        "module": False,
        "builtins": False,
        "environ": False,
        "path": False,
        "namespace": False,
        "threads": usable_cpus(),  # one notebook at a time: the host's CPUs
        "wait": "PASSIVE",
    }


def test_a_kernel_started_afresh_imports_its_framework_itself(books: dict[str, Path]) -> None:
    assert outputs(books["false"], "b_checks")[0].startswith("torch already imported: False")


def test_outputs_are_the_same_forked_or_afresh(books: dict[str, Path]) -> None:
    assert outputs(books["true"], "c_seeded") == outputs(books["false"], "c_seeded")


def test_a_zygote_and_a_worker_start_before_the_jobs_come(tmp_path: Path) -> None:
    kernels = str(REPO_ENVS.kernels(REPO_ENVS.path / "pytorch"))
    env = KernelEnv("pytorch", "polybook-pytorch", (kernels,), tmp_path / "cwd", fork=True)
    notebook = new_notebook()
    notebook.cells.append(new_code_cell("import sys; print('torch' in sys.modules)", "c"))
    jobs = [Job(f"p{i}.md", "pytorch", f"k{i}", notebook, env) for i in range(2)]
    executor = LocalExecutor(1, tmp_path / "work")
    try:
        executor.expect(jobs)
        ahead = [w.proc for w in executor.workers]  # the slot's worker, started ahead
        assert len(ahead) == 1 and ahead[0].poll() is None
        deadline = time.monotonic() + 120
        while executor.zygotes is None or not executor.zygotes.zygotes:  # nothing submitted
            assert time.monotonic() < deadline, "the zygote did not start ahead"
            time.sleep(0.05)
        zygote = executor.zygotes.zygotes[zygote_spec(env)]
        assert zygote is not None
        first = executor.submit(jobs[0]).result()
        assert first.status == "ok" and zygote.process.poll() is None  # one job still to come
        second = executor.submit(jobs[1]).result()
        assert second.status == "ok" and second.notebook is not None
        assert second.notebook.cells[0].outputs[0]["text"] == "True\n"  # forked, warm
        assert zygote.process.wait(timeout=30) is not None  # ended with its last job
        assert [w.proc for w in executor.workers] == ahead  # the jobs ran in it
    finally:
        executor.shutdown()


def test_a_zygote_starting_as_its_build_ends_is_dropped_without_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kernels = str(REPO_ENVS.kernels(REPO_ENVS.path / "pytorch"))
    env = KernelEnv("pytorch", "polybook-pytorch", (kernels,), tmp_path, fork=True)
    pool = ZygotePool()
    got: list[str] = []
    starting = threading.Thread(target=lambda: got.append(pool.socket_for(zygote_spec(env))))
    with caplog.at_level(logging.WARNING, logger="polybook"):
        starting.start()
        time.sleep(0.2)  # it imports the framework: seconds
        pool.close()
        starting.join(120)
    assert got == [""]  # no kernel forks from it
    assert "start afresh" not in caplog.text


def test_a_kernel_ends_with_its_notebook_and_what_it_started_ends_too(tmp_path: Path) -> None:
    with forked_pytorch(tmp_path) as env:
        code = "import os, subprocess\nchild = subprocess.Popen(['sleep', '60'])\n"
        pids = [int(p) for p in run_cell(env, code + "print(os.getpid(), child.pid)").split()]
        deadline = time.monotonic() + 10  # killed at once; the zygote reaps within a second
        while any(alive(pid) for pid in pids):
            assert time.monotonic() < deadline, f"still running: {pids}"
            time.sleep(0.02)


COLLECTED = """import gc
def dirty_mb():
    for line in open("/proc/self/smaps_rollup"):
        if line.startswith("Private_Dirty:"):
            return int(line.split()[1]) / 1024
before = dirty_mb()
gc.collect()
print(round(dirty_mb() - before))"""


def test_a_full_collection_in_a_forked_kernel_leaves_the_zygotes_memory_shared(
    tmp_path: Path,
) -> None:
    with forked_pytorch(tmp_path) as env:
        copied = int(run_cell(env, COLLECTED))  # megabytes the collection made private
    assert copied < 10, f"a collection copied {copied} MB of the zygote's memory"


def test_a_cold_build_forks_its_kernels_from_zygotes_started_before_it_plans(
    tmp_path: Path,
) -> None:
    root = cells_book(tmp_path / "book", {"a": "x = 1", "b": "import os\nprint(os.getppid())"})
    config = load_config(root)
    run, envs = execution(config), BookEnvironments(config)
    pool = head_start(run, envs, config.build.tabs)  # nothing cached: every notebook will run
    assert pool is not None
    (started,) = pool.starting.values()
    reporter = Reporter()
    notebooks, found = libraries(root, reporter)
    report = build_eval(run, envs, notebooks, found, reporter)  # the local executor takes them
    assert not reporter.errors and len(report.ran) == 2
    parent = report.executed[("b.md", "pytorch")].cells[1].outputs[0]["text"]
    assert int(parent) == started.process.pid  # its kernel forked from the zygote started first
    assert started.process.poll() is not None  # and that zygote ended with the build
    assert head_start(run, envs, config.build.tabs) is None  # a warm cache: the plan starts them
    shutil.rmtree(root / "_build" / "cache")
    (root / "_freeze" / "pytorch").mkdir(parents=True)  # outputs may come from there
    assert head_start(run, envs, config.build.tabs) is None


def test_a_local_variant_takes_the_head_start_as_local_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = replace(EXECUTORS["local"], help="the local executor under another name")
    monkeypatch.setitem(EXECUTORS, "here", variant)  # a new name, local's module
    root = cells_book(tmp_path / "book", {"b": "import os\nprint(os.getppid())"})
    config = with_build(load_config(root), executor="here")
    run, envs = execution(config), BookEnvironments(config)
    pool = head_start(run, envs, config.build.tabs)
    assert pool is not None  # warm: started before the pages are read
    (started,) = pool.starting.values()
    reporter = Reporter()
    notebooks, found = libraries(root, reporter)
    report = build_eval(run, envs, notebooks, found, reporter)
    assert not reporter.errors and len(report.ran) == 1
    parent = report.executed[("b.md", "pytorch")].cells[1].outputs[0]["text"]
    assert int(parent) == started.process.pid  # its executor took the zygotes started ahead
