"""``polybook compat`` for real: the drift fixture book (NumPy as its framework, built with
NumPy 2.4) checked against a named target of NumPy 1.26 pins, which has no ``np.long``: in
a side environment with a real kernel, that section fails with NumPy 1.26, and the site's
line under its title and the compatibility page say so (the students' notebooks' line:
``test_compat_units``). Before the
run the site shows nothing; a second run runs nothing again."""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from polybook.commands.cli import main
from polybook.notebooks.compat_line import human_day

from ..books import copy_fixture
from ..browser import browser_context, file_url, offline_page, watch_errors

pytestmark = pytest.mark.slow

SCALARS = "chapter/scalars.md"


@dataclass(frozen=True)
class Checked:
    root: Path
    lines_before: list[str]  # the compat lines of the page before any compat run
    page_before: bool  # whether the compatibility page existed before
    first: subprocess.CompletedProcess[str]
    second: subprocess.CompletedProcess[str]
    record: dict[str, Any]
    record_again: dict[str, Any]


def compat(root: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "polybook", "--root", str(root), "compat"]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=1200)


def lines_of(page: Path) -> list[str]:
    calls: list[str] = []
    with offline_page(calls) as (_, tab, errors):
        tab.goto(file_url(page))
        tab.wait_for_load_state("load")
        found = tab.locator(".pb-compat-line").all_inner_texts()
        assert errors == [] and calls == []
    return found


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    base = tmp_path_factory.mktemp("compat")
    root = copy_fixture(base / "book", "drift_book")
    config = root / "config.ini"
    text = config.read_text().replace("[build]\n", f"[build]\nenvs_dir = {base / 'envs'}\n")
    text += "\n[compat]\nnewest = false\ntargets = numpy1=requirements/numpy-1.26.txt\n"
    text += "          gpu=requirements/gpu.txt\n"  # names no NumPy: not a target of it
    config.write_text(text)
    (root / "requirements/gpu.txt").write_text("torch==2.8.0\n")
    main(["--quiet", "--root", str(root), "build", "html"])  # NumPy 2.4: trapz fails
    html = root / "_build/html"
    before = lines_of(html / "chapter/scalars.html")
    page_before = (html / "compatibility.html").exists()
    first = compat(root)
    record = json.loads((root / "_build/compat/compat.json").read_text(encoding="utf-8"))
    second = compat(root)
    again = json.loads((root / "_build/compat/compat.json").read_text(encoding="utf-8"))
    main(["--quiet", "--root", str(root), "build", "html"])
    return Checked(root, before, page_before, first, second, record, again)


def result(record: dict[str, Any], page: str, target: str) -> dict[str, Any]:
    return next(r for r in record["results"] if (r["page"], r["target"]) == (page, target))


def test_a_release_that_breaks_a_cell_fails_that_section(checked: Checked) -> None:
    assert checked.first.returncode == 0, checked.first.stderr
    broken = result(checked.record, SCALARS, "numpy1")
    assert broken["status"] == "fails"
    assert broken["version"] == "numpy 1.26.4"
    assert broken["cells"] == 1
    error = "AttributeError: module 'numpy' has no attribute 'long'"
    assert broken["first"] == {"cell": 7, "line": 35, "error": error}
    assert broken["report"].startswith("reports/numpy-numpy1.html#cell-")
    assert (checked.root / "_build/compat" / broken["report"].split("#")[0]).is_file()
    # The same section with the pins the book is built with: it runs, with a warning.
    assert result(checked.record, SCALARS, "built")["status"] == "warnings"
    assert result(checked.record, "chapter/same.md", "numpy1")["status"] == "works"
    # trapz: failing with the built pins, back in NumPy 1.26.
    assert result(checked.record, "chapter/removed.md", "built")["status"] == "fails"
    assert result(checked.record, "chapter/removed.md", "numpy1")["status"] == "changed"
    assert "numpy1     numpy 1.26.4" in checked.first.stdout
    (gpu,) = [t for t in checked.record["targets"] if t["target"] == "gpu"]
    assert gpu["note"] == "gpu.txt names no numpy: the target has none"
    assert not [r for r in checked.record["results"] if r["target"] == "gpu"]


def test_a_second_run_runs_nothing_again(checked: Checked) -> None:
    assert checked.second.returncode == 0, checked.second.stderr
    assert "numpy, target numpy1: nothing changed" in checked.second.stderr
    assert "running the notebooks" not in checked.second.stderr
    assert checked.record_again["results"] == checked.record["results"]


def test_a_book_without_compat_json_shows_nothing(checked: Checked) -> None:
    assert checked.lines_before == []
    assert not checked.page_before


def test_the_section_line_says_fails_and_opens_the_report(checked: Checked) -> None:
    html = checked.root / "_build/html"
    (line,) = lines_of(html / "chapter/scalars.html")
    assert "Fails with numpy1 (numpy 1.26.4): 1 cell (details)" in line
    assert "checked " + human_day(checked.record["results"][0]["checked"]) in line
    (same,) = lines_of(html / "chapter/same.md".replace(".md", ".html"))
    assert "Fails" not in same and "Works with numpy1 (numpy 1.26.4)" in same
    calls: list[str] = []
    with offline_page(calls) as (_, tab, errors):
        tab.goto(file_url(html / "chapter/scalars.html"))
        tab.locator(".pb-compat-line a", has_text="details").click()
        tab.wait_for_load_state("load")
        assert "/compat/reports/numpy-numpy1.html" in tab.url and "#cell-" in tab.url
        assert tab.locator("h1").inner_text().startswith("What changed: ")
        assert tab.locator(".pb-report h2").first.inner_text() == "Changed cells"
        assert errors == [] and calls == []


def test_the_compatibility_page_lists_every_section(checked: Checked) -> None:
    calls: list[str] = []
    with offline_page(calls) as (_, tab, errors):
        tab.goto(file_url(checked.root / "_build/html/compatibility.html"))
        rows = tab.locator("#polybook-compat-table tbody tr").all_inner_texts()
        assert errors == [] and calls == []
    assert len(rows) == len({r["page"] for r in checked.record["results"]})
    assert any("fails: 1 cell" in r for r in rows)


@contextmanager
def served(folder: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_newer_compat_json_beside_the_site_is_read_at_view_time(checked: Checked) -> None:
    html = checked.root / "_build/html"
    published = html / "compat/compat.json"
    saved = published.read_text(encoding="utf-8")
    newer = json.loads(saved)
    newer["made"] = "2999-01-01T00:00:00Z"
    for r in newer["results"]:
        if (r["page"], r["target"]) == (SCALARS, "numpy1"):
            r.update(status="works", cells=0, first=None, checked="2999-01-01")
    published.write_text(json.dumps(newer), encoding="utf-8")
    try:
        with served(html) as url, browser_context() as context:
            tab = context.new_page()
            errors = watch_errors(tab)
            tab.goto(url + "chapter/scalars.html")
            line = tab.locator(".pb-compat-line")
            line.filter(has_text="checked 1 January 2999").wait_for()
            assert "Works with numpy1 (numpy 1.26.4)" in line.inner_text()
            assert [e for e in errors if e.startswith("uncaught")] == []  # a server's 404s aside
    finally:
        published.write_text(saved, encoding="utf-8")
