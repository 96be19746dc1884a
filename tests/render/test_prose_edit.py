"""A prose edit makes Sphinx read again the edited page alone: the configuration it saved
equals the next run's (no "configuration has changed"), whatever the extensions add later."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarks.make_book import write_book
from polybook.commands.cli import main
from polybook.render.sphinx.process import WarmSphinx

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


def test_sphinx_starts_while_pages_are_prepared_and_runs_only_on_the_same_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "book"
    write_book(root, 4)
    build = ["--quiet", "--root", str(root), "build", "html"]
    assert main(build) == 0
    seen: list[str] = []
    for name in ("run", "stop"):
        method = getattr(WarmSphinx, name)

        def spy(
            self: WarmSphinx, *args: object, _name: str = name, _method: Any = method
        ) -> object:
            if self.process is not None:  # not after it stopped
                seen.append(_name)
            return _method(self, *args)

        monkeypatch.setattr(WarmSphinx, name, spy)
    page = root / "chapter_preliminaries" / "index.md"
    page.write_text(page.read_text().replace("The ", "One ", 1))
    assert main(build) == 0
    assert seen == ["run", "stop"]  # a build on the command line keeps nothing running
    html = root / "_build" / "html" / "chapter_preliminaries" / "index.html"
    assert "One " in html.read_text(encoding="utf-8")
    assert "build succeeded" in (root / "_build" / "sphinx-html.log").read_text()
    # Other settings: the early process is stopped, and Sphinx runs on the new ones.
    config = root / "config.ini"
    config.write_text(config.read_text().replace("title = A Synthetic", "title = Renamed A"))
    seen.clear()
    assert main(build) == 0
    assert seen == ["stop"]
    assert "Renamed" in html.read_text(encoding="utf-8")
    # A build that stops before the site stops it too.
    page.write_text(page.read_text() + "\n```{.python .input}\nx = 1\n")  # never closed
    seen.clear()
    assert main(build) == 1
    assert seen == ["stop"]
    assert "One " in html.read_text(encoding="utf-8")  # the last good site
    assert not list((root / "_build").glob("*.next"))


def test_a_cold_build_starts_sphinx_while_its_pages_are_prepared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from polybook.render.sphinx.process import ReadySphinx
    from polybook.site import stage

    root = tmp_path / "book"
    write_book(root, 4)
    made: list[ReadySphinx] = []
    fresh_runs: list[Path] = []
    start = ReadySphinx.__init__

    def started(self: ReadySphinx) -> None:
        start(self)
        made.append(self)

    def run_sphinx(settings_file: Path, settings: dict[str, Any], fresh: bool) -> str:
        fresh_runs.append(settings_file)
        return ""

    monkeypatch.setattr(ReadySphinx, "__init__", started)
    monkeypatch.setattr(stage, "run_sphinx", run_sphinx)
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    assert len(made) == 1 and fresh_runs == []  # the process started first made the run
    assert made[0].process is None  # and it is gone
    assert (root / "_build" / "html" / "index.html").is_file()
    assert "build succeeded" in (root / "_build" / "sphinx-html.log").read_text()


def test_the_edit_after_a_cold_build_runs_on_the_process_started_early(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files the pages read outside Sphinx's sources (d2l-en's API page reads the
    library) are known once a cold build has read them: the next build's settings name
    them, and that only decides whether Sphinx runs, so the process started on the cold
    build's settings makes the run."""
    from polybook.render.sphinx import process
    from polybook.site import stage

    root = tmp_path / "book"
    write_book(root, 4)
    (root / "notes.txt").write_text("Read by a page.\n")
    read = root / "chapter_preliminaries" / "section-01.md"
    read.write_text(read.read_text() + "\n```{literalinclude} ../notes.txt\n```\n")
    build = ["--quiet", "--root", str(root), "build", "html"]
    assert main(build) == 0  # cold
    inputs = json.loads((root / "_build" / "sphinx-html.inputs.json").read_text())
    assert inputs == {"chapter_preliminaries/section-01": [str(root / "notes.txt")]}
    runs: list[str] = []
    warm_run = WarmSphinx.run

    def run(self: WarmSphinx, *args: Any) -> str:
        runs.append("warm")
        return warm_run(self, *args)

    def run_sphinx(*args: Any) -> str:
        runs.append("another process")
        return stage_run(*args)

    stage_run = process.run_sphinx
    monkeypatch.setattr(WarmSphinx, "run", run)
    monkeypatch.setattr(stage, "run_sphinx", run_sphinx)
    page = root / "chapter_preliminaries" / "index.md"
    page.write_text(page.read_text().replace("The ", "One ", 1))
    assert main(build) == 0
    assert runs == ["warm"]
    assert sphinx_read(root) == {"chapter_preliminaries/index"}
    html = root / "_build" / "html" / "chapter_preliminaries" / "index.html"
    assert "One " in html.read_text(encoding="utf-8")
    (root / "notes.txt").write_text("Read again.\n")  # what the page reads changed
    runs.clear()
    assert main(build) == 0
    assert runs == ["warm"] and sphinx_read(root) == {"chapter_preliminaries/section-01"}
    html = root / "_build" / "html" / "chapter_preliminaries" / "section-01.html"
    assert "Read again." in re.sub(r"<[^>]+>", "", html.read_text(encoding="utf-8"))
