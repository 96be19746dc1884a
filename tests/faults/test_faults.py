"""Faults in real kernels: timeouts, dying kernels and an interrupted build."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import cache_entries, cells_book, processes_in

pytestmark = pytest.mark.slow


def test_timeouts_and_dead_kernels_are_located_and_the_rest_still_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = cells_book(
        tmp_path / "book",
        {
            "slow": "#@timeout 2\nimport time\ntime.sleep(60)",
            "exits": "import os\nos._exit(3)",
            "segfault": "import ctypes\nctypes.string_at(0)",
            "fine": "print('fine')",
        },
    )
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 1
    err = capsys.readouterr().err
    assert (
        "slow.md:6 [pytorch] cell 1: CellTimeoutError: the cell timed out: nothing from it "
        "for 2 s (limit 2 s, set by `#@timeout 2`)" in err
    )
    assert "exits.md:4 [pytorch] cell 1: DeadKernelError: the kernel died" in err
    assert "segfault.md:4 [pytorch] cell 1: DeadKernelError: the kernel died" in err
    assert len(cache_entries(root)) == 1  # only the notebook that succeeded
    executed = (root / "_build/eval/pytorch/fine.ipynb").read_text()
    assert "fine\\n" in executed


def test_an_interrupted_build_keeps_finished_results_and_leaves_no_kernel(tmp_path: Path) -> None:
    root = cells_book(
        tmp_path / "book",
        {
            "quick": "print('quick')",
            "stuck": "import time\ntime.sleep(600)",
        },
    )
    build = subprocess.Popen(
        [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), "build", "eval"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not cache_entries(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert cache_entries(root), "the quick notebook never finished"
    time.sleep(1)  # let the stuck notebook's kernel reach its cell
    build.send_signal(signal.SIGINT)
    _, err = build.communicate(timeout=60)
    assert build.returncode == 130, err
    assert "interrupted" in err
    assert len(cache_entries(root)) == 1
    deadline = time.monotonic() + 10
    while processes_in(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_in(root) == []
