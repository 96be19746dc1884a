"""``polybook baseline`` and ``polybook diff`` on executed notebooks a build left in
``_build/eval`` (no kernel runs here): float noise within the tolerance, an image that
changed, another git revision's ``_freeze/`` as the baseline, and the errors a user meets.

The fixture pair ``fixtures/drift/training-*.ipynb`` is one page run twice: the second run's
numbers differ by about 1e-7, its throughput line by what a timing does.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from PIL import Image

from polybook.commands.cli import main
from polybook.execution.cache import CacheKey
from polybook.execution.frozen_outputs import FrozenOutputs
from polybook.layout import Layout

from ..books import FIXTURES, copy_fixture, drawn_png, executed_notebook, put_executed, tree_digest

PAGE = "chapter/training.md"


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """The drift fixture book; its environments' folder is empty: nothing runs here."""
    root = copy_fixture(tmp_path / "book", "drift_book")
    config = root / "config.ini"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[build]\n", f"[build]\nenvs_dir = {tmp_path / 'envs'}\n"))
    return root


def polybook(root: Path, *args: str) -> int:
    return main(["--quiet", "--root", str(root), *args])


def built_from(root: Path, fixture: str) -> None:
    """The build's executed notebook of :data:`PAGE` is the fixture ``fixture``."""
    target = Layout(root).executed(PAGE, "numpy")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / "drift" / fixture, target)


def line_of(root: Path, page: str, code: str) -> int:
    lines = (root / page).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if line.startswith(code))


def records(path: Path) -> list[tuple[str, int, int, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(r["page"], r["line"], r["cell"], r["kind"]) for r in data["records"]]


def test_float_noise_is_within_tolerance_and_passes_the_gate(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = tree_digest(book)
    built_from(book, "training-before.ipynb")
    assert polybook(book, "baseline", "save", "host-a") == 0
    built_from(book, "training-after.ipynb")
    out = tmp_path / "drift.json"
    capsys.readouterr()
    assert polybook(book, "diff", "host-a", "--json", str(out), "--fail-on", "change") == 0
    lines = [line_of(book, PAGE, code) for code in ("import time", "start = ", "print(np.")]
    assert records(out) == [(PAGE, lines[n], n + 1, "tolerance") for n in range(3)]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["before"]["label"] == "baseline host-a"
    assert data["before"]["versions"] == {"numpy": {"numpy": "2.4.6"}}  # as the runs recorded
    assert data["notebooks"] == [
        {"page": PAGE, "framework": "numpy", "cells": 3, "changed": 3, "not_compared": 0}
    ]
    shown = capsys.readouterr().out
    assert "before: baseline host-a" in shown and "report: " in shown
    html = BeautifulSoup(
        (book / "_build/drift/diff-host-a.html").read_text(encoding="utf-8"), "html.parser"
    )
    titles = [h.get_text() for h in html.select("section h2")]
    assert "Within tolerance" in titles and "Changed cells" not in titles
    assert len(html.select("article")) == 3
    # A report is published beside a site: it names no folder of this host.
    assert str(book) not in str(html) and "file://" not in str(html)
    assert html.select(".links a")[-1]["href"] == f"../../{PAGE}"
    # A tighter tolerance shows the noise, and fails the gate at the cells' lines.
    assert (
        polybook(book, "diff", "host-a", "--rtol", "0", "--atol", "1e-9", "--fail-on", "change")
        == 1
    )
    errors = capsys.readouterr().err
    assert f"{PAGE}:{lines[0]} [numpy] cell 1: changed: result: line 1:" in errors
    assert "0.12573022 → 0.12573032, beyond rtol 0, atol 1e-09" in errors
    assert "[polybook.drift.changed]" in errors
    assert tree_digest(book) == sources  # the author's files are never written


def image_cell(end: int, level: int = 6) -> tuple[str, list[dict[str, Any]]]:
    data = base64.b64encode(drawn_png(end, level=level)).decode()
    shown = {"output_type": "display_data", "metadata": {}, "data": {"image/png": data}}
    return "plot()", [shown]


def test_an_image_difference_is_found_and_shown(book: Path, tmp_path: Path) -> None:
    page = "chapter/plots.md"
    before = [image_cell(50), image_cell(50), ("x", [])]
    put_executed(book, executed_notebook(page, "numpy", before, "numpy 2.4.6"))
    assert polybook(book, "baseline", "save", "plots") == 0
    # The first plot moved; the second is the same picture encoded anew.
    after = [image_cell(80), image_cell(50, level=1), ("x", [])]
    put_executed(book, executed_notebook(page, "numpy", after, "numpy 2.4.7"))
    out, html_file = tmp_path / "drift.json", tmp_path / "report" / "drift.html"
    assert polybook(book, "diff", "--json", str(out), "--html", str(html_file)) == 0
    assert records(out) == [(page, 10, 1, "image")]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["packages"] == [
        {"framework": "numpy", "package": "numpy", "before": "2.4.6", "after": "2.4.7"}
    ]
    assert data["records"][0]["versions"] == {"numpy": ["2.4.6", "2.4.7"]}
    assert "of the pixels differ" in data["records"][0]["detail"]
    html = BeautifulSoup(html_file.read_text(encoding="utf-8"), "html.parser")
    (entry,) = html.select("article")
    pictures = [img["src"] for img in entry.select("img")]
    assert len(pictures) == 3  # before, after, and the difference
    assert all(str(src).startswith("data:image/png;base64,") for src in pictures)
    assert base64.b64decode(str(pictures[0]).partition(",")[2]) == drawn_png(50)
    assert base64.b64decode(str(pictures[1]).partition(",")[2]) == drawn_png(80)
    difference = base64.b64decode(str(pictures[2]).partition(",")[2])
    with Image.open(io.BytesIO(difference)) as image:
        colors = {color for _, color in image.convert("RGB").getcolors(1 << 16) or []}
    assert (220, 30, 30) in colors
    assert entry.select_one(".before") is not None and entry.select_one(".after") is not None


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_another_revisions_freeze_is_a_baseline(book: Path, tmp_path: Path) -> None:
    page = "chapter/removed.md"
    area = {"output_type": "execute_result", "execution_count": 2, "metadata": {}}
    area["data"] = {"text/plain": "np.float64(4.0)"}
    cells: list[tuple[str, list[dict[str, Any]]]] = [
        ("import numpy as np\n\nvalues = [1, 2, 3]", []),
        ("np.trapz(values)", [area]),
    ]
    frozen = executed_notebook(page, "numpy", cells, "numpy 2.2.0")
    FrozenOutputs(book).write(page, "numpy", frozen, CacheKey.of(frozen, "numpy", ""))
    git(book, "init", "-q")
    git(book, "-c", "user.name=a", "-c", "user.email=a@b", "add", ".")
    git(book, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "frozen")
    error: dict[str, Any] = {"output_type": "error", "ename": "AttributeError", "traceback": []}
    error["evalue"] = "module 'numpy' has no attribute 'trapz'"
    now = [cells[0], ("np.trapz(values)  # the area", [error])]  # a comment edited since
    put_executed(book, executed_notebook(page, "numpy", now, "numpy 2.4.6"))
    out = tmp_path / "drift.json"
    assert polybook(book, "diff", "git:HEAD", "--json", str(out), "--fail-on", "error") == 1
    assert records(out) == [(page, 20, 2, "new-error")]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["before"]["label"] == "_freeze/ at HEAD"
    assert data["packages"][0]["before"] == "2.2.0"
    assert polybook(book, "diff", "git:no-such-revision") == 1


def test_missing_baselines_and_bad_names_are_located_errors(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert polybook(book, "baseline", "save", "first") == 1
    assert "_build/eval: nothing to save: no executed notebook of numpy here" in (
        capsys.readouterr().err
    )
    built_from(book, "training-before.ipynb")
    assert polybook(book, "diff") == 1
    assert "no baseline to compare with: save one with `polybook baseline save NAME`" in (
        capsys.readouterr().err
    )
    assert polybook(book, "baseline", "save", "../up") == 1
    assert "'../up' cannot name a baseline" in capsys.readouterr().err
    assert polybook(book, "baseline", "save", "first") == 0
    assert polybook(book, "baseline", "save", "second") == 0
    capsys.readouterr()
    assert polybook(book, "baseline", "list") == 0
    listed = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [row[0] for row in listed] == ["second", "first"]
    assert listed[0][2:] == ["1 notebooks", "numpy 2.4.6"]
    assert polybook(book, "diff", "third") == 1
    assert "no baseline named 'third' (baselines: second, first" in capsys.readouterr().err
    assert polybook(book, "diff", "side:absent") == 1
    assert "no side build named 'absent'" in capsys.readouterr().err
    # An upgrade needs one framework and pins that exist, and says so before it sets up
    # anything.
    assert polybook(book, "upgrade", "--tab", "all", "--requirements", "x.txt") == 1
    assert "name the one framework to upgrade" in capsys.readouterr().err
    assert polybook(book, "upgrade", "--tab", "numpy", "--requirements", "absent.txt") == 1
    assert "absent.txt: no such requirements file" in capsys.readouterr().err
    assert not (book.parent / "envs").exists()
