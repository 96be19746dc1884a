"""Failing cells in real kernels: an error, a timeout, a kernel that dies (its exit code or
signal named), a worker lost (its cause, page and cell named), a cell that prints 20 MB or
writes to the worker's stdout. Each is located; the other notebooks still run; a page whose
notebook fails keeps its last good HTML and is reported as stale, while the other pages are
updated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main

from ..books import cache_entries, cells_book
from .builds import SCRIPTED_SVG, write_page

pytestmark = pytest.mark.slow


def test_a_failing_notebook_keeps_its_pages_last_good_html_and_the_rest_is_updated(
    book: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    use_html = (book / "_build" / "html" / "use.html").read_bytes()
    assert b"42" in use_html
    write_page(book, "use", "Second prose.", "raise ValueError('broken')")
    write_page(book, "lib", "The library, edited.", "def double(x):  #@save\n    return 2 * x")
    assert main(["--quiet", "--root", str(book), "build", "html"]) == 1
    assert "use.md:6 [pytorch] cell 1: ValueError: broken [polybook.exec]" in (
        capsys.readouterr().err
    )
    assert any("use.md: page kept from the last good build" in m for m in caplog.messages)
    assert (book / "_build" / "html" / "use.html").read_bytes() == use_html
    assert b"The library, edited." in (book / "_build" / "html" / "lib.html").read_bytes()
    write_page(book, "use", "Third prose.", "print('fixed')")
    assert main(["--quiet", "--root", str(book), "build", "html"]) == 0
    fixed = (book / "_build" / "html" / "use.html").read_text()
    assert "Third prose." in fixed and "fixed" in fixed


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


LOUD = "import sys\nfor n in range(200_000):\n    sys.stdout.write('x' * 99 + '\\n')"
SVG_CELL = f"from IPython.display import SVG, display\ndisplay(SVG({SCRIPTED_SVG!r}))"
FAULTS = {
    "exits": "import os\nos._exit(3)",
    "killed": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    "lost": "print('before')\n\n```\n\n```{.python .input}\nimport os, signal\n"
    "os.kill(os.getppid(), signal.SIGKILL)",
    "loud": LOUD,
    "drawn": SVG_CELL,
}


def test_kernel_and_worker_deaths_name_their_cause_and_long_outputs_are_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = cells_book(tmp_path / "book", FAULTS)
    config = root / "config.ini"  # kernels started by their worker: their parent is it
    config.write_text(config.read_text(encoding="utf-8") + "fork_kernels = false\n")
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 1
    err = capsys.readouterr().err
    assert "exits.md:4 [pytorch] cell 1: DeadKernelError: the kernel died: exit code 3" in err
    assert (
        "killed.md:4 [pytorch] cell 1: DeadKernelError: the kernel died: killed by signal 9"
        " (SIGKILL): the system may have run out of memory [polybook.exec]"
    ) in err
    assert (
        "lost.md:9 [pytorch] cell 2: the worker process running the notebook was lost: killed"
        " by signal 9 (SIGKILL)"
    ) in err
    assert "[polybook.exec.worker]" in err
    # 20 MB of text made a page of about 1 MB, with the note; the whole is in _build/eval.
    page = root / "_build" / "html" / "loud.html"
    assert page.stat().st_size < 1_500_000
    html = page.read_text()
    assert "[output cut: 19.0 MB of this cell's 20.0 MB of output text not shown" in html
    assert "the whole output is in _build/eval/pytorch/loud.ipynb" in html
    executed = json.loads((root / "_build" / "eval" / "pytorch" / "loud.ipynb").read_text())
    (cell,) = (c for c in executed["cells"] if c["cell_type"] == "code")
    assert sum(len("".join(o["text"])) for o in cell["outputs"]) == 20_000_000
    download = root / "_build" / "html" / "_notebooks" / "pytorch" / "loud.ipynb"
    assert download.stat().st_size < 1_500_000
    # The SVG output: an image of the page, and a file that runs nothing when opened.
    drawn = (root / "_build" / "html" / "drawn.html").read_text()
    (svg,) = (root / "_build" / "html" / "_images").glob("*.svg")
    images = BeautifulSoup(drawn, "html.parser").select(".pb-output img")
    assert [i["src"] for i in images] == [f"_images/{svg.name}"]
    assert "<rect" in svg.read_text() and "alert" not in svg.read_text()


def test_a_kernel_writing_to_file_descriptor_one_cannot_corrupt_the_worker_protocol(
    tmp_path: Path,
) -> None:
    code = "import os\nos.write(1, b'done\\ndone\\n')\nos.write(2, b'noise\\n')\nprint('after')"
    root = cells_book(tmp_path / "book", {"noisy": code, "calm": "print('calm')"})
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 0
    assert "after\n" in printed(root / "_build/eval/pytorch/noisy.ipynb")
    assert "calm\n" in printed(root / "_build/eval/pytorch/calm.ipynb")


def printed(notebook: Path) -> str:
    """What the cells of an executed notebook printed."""
    cells = json.loads(notebook.read_text())["cells"]
    return "".join(o.get("text", "") for c in cells for o in c.get("outputs", []))
