"""The book we ship: every notebook of every framework executes on this host, and its build
(as a fresh clone holds it: the committed compatibility record too) warns of nothing but the
cells this host cannot run."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.environments import devices
from polybook.meta import cell_meta
from polybook.nb import reads

from ..books import SHIPPED_FOLDERS, copy_shipped

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
# use-gpu's cells that declare two GPUs: 4 + 4 (`%%tab all`) + 3 (`%%tab pytorch, mxnet,
# jax`), badged on a host with fewer; the page shows 5 (a cell all tabs share, once).
BADGED_CELLS = 11
BADGES_SHOWN = 5


def test_every_notebook_of_the_book_runs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "book"
    copy_shipped(root, (*SHIPPED_FOLDERS, "_compat"))
    report = tmp_path / "report.json"
    code = main(["--quiet", "--root", str(root), "build", "html", "--report", str(report)])
    summary = json.loads(report.read_text())
    assert code == 0
    assert summary["failed"] == 0
    pages = sorted(p.relative_to(REPO).as_posix() for p in REPO.glob("chapter_*/*.md"))
    with_code = [p for p in pages if "{.python .input}" in (REPO / p).read_text()]
    ran = {(path, fw) for path, fw, _ in summary["ran"]}
    assert ran == {(p, fw) for p in with_code for fw in ("pytorch", "mxnet", "jax", "tensorflow")}
    gpu_page = (root / "_build/html/chapter_builders-guide/use-gpu.html").read_text()
    badges = re.findall(r'class="[^"]*\bpb-badge\b', gpu_page)
    gpus = devices.host_gpus()
    assert len(badges) == (BADGES_SHOWN if gpus < 2 else 0), badges
    assert gpu_page.count(f"needs 2 GPUs; built on a host with {gpus}") == len(badges)
    badged = [
        cell_meta(cell).skipped
        for fw in ("pytorch", "mxnet", "jax", "tensorflow")
        for cell in reads(
            (root / f"_build/eval/{fw}/chapter_builders-guide/use-gpu.ipynb").read_text()
        ).cells
        if cell_meta(cell).skipped
    ]
    assert badged == [f"needs 2 GPUs; built on a host with {gpus}"] * (
        BADGED_CELLS if gpus < 2 else 0
    )
    # Its only messages: a note on each cell that needs more GPUs than this host has.
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert [m for m in said if not m.endswith("[polybook.exec.devices]")] == []
    assert len(said) == len(badged)
