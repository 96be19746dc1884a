"""A prose edit makes Sphinx read again the edited page alone: the configuration it saved
equals the next run's (no "configuration has changed"), whatever the extensions add later."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.make_book import write_book
from polybook.cli import main

pytestmark = pytest.mark.slow


def sphinx_read(root: Path) -> set[str]:
    """The pages the last Sphinx run read (as its diagnostics file records them)."""
    lines = (root / "_build" / "sphinx-html.diagnostics.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    return {e["docname"] for e in events if e.get("event") == "read"}


def doctrees(root: Path) -> dict[str, int]:
    folder = root / "_build" / "doctrees"
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns for p in folder.rglob("*")}


def test_a_prose_edit_rereads_only_the_edited_page(tmp_path: Path) -> None:
    root = tmp_path / "book"
    write_book(root, 12)
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    assert len(sphinx_read(root)) > 12  # the first build reads every page
    before = doctrees(root)
    page = root / "chapter_preliminaries" / "index.md"  # saves no code: no API page uses it
    page.write_text(page.read_text().replace("The ", "One ", 1))
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    log = (root / "_build" / "sphinx-html.log").read_text()
    assert "configuration has changed" not in log and "[config changed" not in log
    assert sphinx_read(root) == {"chapter_preliminaries/index"}
    after = doctrees(root)
    changed = {name for name, stamp in after.items() if before.get(name) != stamp}
    assert {n for n in changed if n.endswith(".doctree")} == {"chapter_preliminaries/index.doctree"}
    html = root / "_build" / "html" / "chapter_preliminaries" / "index.html"
    assert "One " in html.read_text(encoding="utf-8")
