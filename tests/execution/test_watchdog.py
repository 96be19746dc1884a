"""The watchdog on real kernels: a cell silent past its limit (blocked in C code, a thread
deadlocked) and a kernel whose process is stopped each end the cell with a located
``CellTimeoutError``, and the page fails; a cell that keeps reporting runs past its limit."""

from __future__ import annotations

import pytest

from ..books import build, cache_entries, cells_book

pytestmark = pytest.mark.slow


def test_hanging_kernels_end_with_a_located_timeout_and_a_talking_cell_runs_on(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    root = cells_book(
        tmp_path_factory.mktemp("watchdog") / "book",
        {
            "c_code": "#@timeout 2\nimport ctypes\nctypes.CDLL(None).pause()",
            "deadlock": "#@timeout 2\nimport threading\nlock = threading.Lock()\n"
            "lock.acquire()\nlock.acquire()",
            "stopped": "#@timeout 600\nimport os, signal\nos.kill(os.getpid(), signal.SIGSTOP)",
            "talking": "#@timeout 2\nimport time\nfor i in range(8):\n"
            "    print(i, flush=True)\n    time.sleep(0.5)\nprint('done')",
        },
    )
    assert build(root, "eval") == 1
    err = capsys.readouterr().err
    silent = "CellTimeoutError: the cell timed out: nothing from it for 2 s (limit 2 s, set by"
    assert f"c_code.md:6 [pytorch] cell 1: {silent}" in err
    assert f"deadlock.md:8 [pytorch] cell 1: {silent}" in err
    assert (
        "stopped.md:5 [pytorch] cell 1: CellTimeoutError: the kernel stopped answering: its"
        " process is stopped (SIGSTOP)" in err
    )
    assert "talking.md" not in err
    executed = (root / "_build/eval/pytorch/talking.ipynb").read_text()
    assert "done\\n" in executed
    assert len(cache_entries(root)) == 1  # only the page that succeeded
