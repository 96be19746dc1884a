"""Interrupted builds (SIGINT, SIGTERM): finished results stay cached, no kernel is left,
the library is the old or the new one (never half of one), no half-written file is left,
the sources are intact and the next build completes. (``kill -9``, which a build cannot
handle: :mod:`tests.faults.test_killed_builds`.)"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import cache_entries, cells_book, processes_in
from .builds import checksums, polybook, saved_book, temp_files, wait_for

pytestmark = pytest.mark.slow


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


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_execution_keeps_finished_results_and_leaves_no_kernel(
    tmp_path: Path, signum: int
) -> None:
    root = cells_book(
        tmp_path / "book", {"quick": "print('quick')", "stuck": "import time\ntime.sleep(600)"}
    )
    build = polybook(root, "build", "eval")
    wait_for(lambda: bool(cache_entries(root)))
    before = checksums(root)  # the library is written before anything runs
    time.sleep(1)  # the stuck notebook's kernel reaches its cell
    build.send_signal(signum)
    _, err = build.communicate(timeout=60)
    assert build.returncode == (130 if signum == signal.SIGINT else 143), err
    assert len(cache_entries(root)) == 1
    wait_for(lambda: not processes_in(root), 10)
    assert checksums(root) == before
    assert temp_files(root) == []
    # The next build takes the finished notebook from the cache and runs the other one.
    (root / "stuck.md").write_text("# stuck\n\n```{.python .input}\nprint('unstuck')\n```\n")
    report = tmp_path / "report.json"
    assert main(["--quiet", "--root", str(root), "build", "eval", "--report", str(report)]) == 0
    summary = json.loads(report.read_text())
    assert summary["cached"] == 1 and [r[0] for r in summary["ran"]] == ["stuck.md"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_library_is_written_leaves_the_old_or_the_new_library(
    tmp_path: Path, signum: int
) -> None:
    root = saved_book(tmp_path / "book", 3000)
    library = root / "d2l" / "torch.py"
    library.parent.mkdir()
    library.write_text("# the last good library\n")
    old = library.read_bytes()
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    new = library.read_bytes()
    library.write_bytes(old)
    sources = checksums(root)
    for delay in (0.2, 0.5, 0.8, 1.1, 1.4):
        build = polybook(root, "build", "lib")
        time.sleep(delay)
        build.send_signal(signum)
        build.communicate(timeout=60)
        assert build.returncode in (0, 130, 143, -signum)  # -signum: before main() ran
        assert library.read_bytes() in (old, new)  # never a half-written file
        assert temp_files(root) == []
        library.write_bytes(old)
        assert checksums(root) == sources
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    assert library.read_bytes() == new
