"""Frozen outputs: a (simulated) GPU host's run, frozen into ``_freeze/``, shown by a CPU-only
build of a fresh copy with its provenance; stale once the code changes."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main
from polybook.execution.jobs import Inventory

from ..books import chapter_book, code, evaluate, ran

pytestmark = pytest.mark.slow

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
GPU_PAGE = (
    code(
        "import base64, torch",
        "from IPython.display import Image, display",
        f"PNG = base64.b64decode('{PNG}')",
    )
    + code("print(torch.device('cuda:0'))")
    + code("display(Image(data=PNG))", "display(Image(data=PNG))")
)
PLAIN = code("print(6 * 7)")


def html(root: Path, name: str) -> BeautifulSoup:
    text = (root / "_build/html" / name).read_text(encoding="utf-8")
    return BeautifulSoup(text, "html.parser")


def build_html(root: Path) -> dict[str, Any]:
    report = root.parent / f"{root.name}-report.json"
    assert main(["--quiet", "--root", str(root), "build", "html", "--report", str(report)]) == 0
    summary: dict[str, Any] = json.loads(report.read_text())
    return summary


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A book built on a GPU host (the scheduler's inventory says one GPU), then frozen."""
    root = chapter_book(tmp_path_factory.mktemp("gpu") / "book", {"gpus": GPU_PAGE, "plain": PLAIN})
    assert ran(evaluate(root, Inventory(gpus=1))) == {"chap/gpus.md", "chap/plain.md"}
    pages = [str(root / "chap/gpus.md"), str(root / "chap/plain.md")]
    assert main(["--quiet", "--root", str(root), "freeze", *pages]) == 0
    return root


def test_freeze_writes_outputs_and_each_image_once(frozen: Path) -> None:
    entry = json.loads((frozen / "_freeze/pytorch/chap/gpus.json").read_text())
    assert entry["run"]["device_class"] == "cuda" and entry["run"]["host_gpus"] == 1
    outputs = [o for cell in entry["cells"] for o in cell["outputs"]]
    assert any(o.get("text") == "cuda:0\n" for o in outputs)
    images = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2 and images[0] == images[1] and set(images[0]) == {"file"}
    assert [p.name for p in (frozen / "_freeze/files").iterdir()] == [
        images[0]["file"].removeprefix("files/")
    ]
    # Outputs that do not depend on the device are not frozen: every host makes them.
    assert not (frozen / "_freeze/pytorch/chap/plain.json").exists()


def test_a_cpu_build_of_a_fresh_copy_shows_them_then_reports_them_stale(
    frozen: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clone = Path(
        shutil.copytree(frozen, tmp_path / "clone", ignore=shutil.ignore_patterns("_build"))
    )
    summary = build_html(clone)  # this host has no GPU
    assert [r[0] for r in summary["ran"]] == ["chap/plain.md"]
    soup = html(clone, "chap/gpus.html")
    assert soup.select("div.pb-badge") == []
    assert "cuda:0" in soup.get_text()
    notes = [n.get_text(strip=True) for n in soup.select("div.pb-provenance")]
    assert len(notes) == 1 and notes[0].startswith("output of a build on a host with 1 GPU (torch")
    assert len(soup.select(".pb-output img")) == 2
    # The code changes: the frozen outputs are stale, reported at the cell and not shown.
    page = clone / "chap/gpus.md"
    page.write_text(page.read_text().replace("'cuda:0'))", "'cuda:0'), 'edited')"))
    line = page.read_text().splitlines().index("print(torch.device('cuda:0'), 'edited')") + 1
    with caplog.at_level(logging.WARNING, logger="polybook"):
        build_html(clone)
    stale = [r.getMessage() for r in caplog.records if "freeze.stale" in r.getMessage()]
    assert stale == [
        f"chap/gpus.md:{line} [pytorch] cell 2: the frozen outputs in _freeze/ are stale: the"
        " code of this cell changed since they were frozen; they are not shown (build it on a"
        " GPU host, then run `polybook freeze chap/gpus.md`) [polybook.freeze.stale]"
    ]
    soup = html(clone, "chap/gpus.html")
    shown = [o.get_text(strip=True) for o in soup.select("div.pb-output")]
    assert "cuda:0" not in shown  # the frozen output
    # The cell runs here (naming a device needs none), and shows this host's output.
    assert "cuda:0 edited" in shown
    assert soup.select("div.pb-badge") == [] and soup.select("div.pb-provenance") == []
    # A CPU host's run is not frozen.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="polybook"):
        assert main(["--quiet", "--root", str(clone), "freeze", str(page)]) == 1
    assert "not frozen: its last run was on a CPU host" in caplog.text
