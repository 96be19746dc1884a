"""``polybook compat``'s parts without kernels: how a section is judged from its notebooks
and the comparison, what a second run keeps, the sections that newly fail, the targets of
``[compat]``, the line of the students' notebooks, and a site without a record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from nbformat import NotebookNode

from polybook.commands.cli import main
from polybook.commands.compat import newly_failing, targets_of
from polybook.config import load_config
from polybook.diagnostics import PolybookError
from polybook.drift import compat
from polybook.drift.compat_pins import moving, read_pins
from polybook.drift.model import CellChange, CellDrift, DriftReport
from polybook.drift.report_html import render_html
from polybook.nb import new_code_cell, new_notebook, node
from polybook.notebooks.compat_line import compat_line
from polybook.notebooks.student import PageInfo, student_notebook
from polybook.notebooks.variants import REGISTRY
from polybook.render.plain import Plain
from polybook.site.compat import compat_pages, write_compat
from polybook.source.readable import Readable

from ..books import REPO, copy_fixture, pages_book


def notebook(*cells: list[dict[str, Any]]) -> NotebookNode:
    nb = new_notebook()
    for index, outputs in enumerate(cells):
        cell = new_code_cell("x", f"c{index}")
        cell.outputs = [node(o) for o in outputs]
        cell.execution_count = 1
        nb.cells.append(cell)
    return nb


ERROR = {"output_type": "error", "ename": "AttributeError", "evalue": "no long", "traceback": []}
WARNING = {"output_type": "stream", "name": "stderr", "text": "a.py:1: FutureWarning: soon\n"}
FINE = {"output_type": "stream", "name": "stdout", "text": "1\n"}


def test_the_built_pins_judge_errors_and_warnings() -> None:
    notebooks = {
        ("a.md", "numpy"): notebook([FINE], [ERROR]),
        ("b.md", "numpy"): notebook([WARNING]),
        ("c.md", "numpy"): notebook([FINE]),
        ("d.md", "numpy"): new_notebook(),  # no code: not a section to check
    }
    found = {r.page: r for r in compat.judge_built(notebooks, "numpy 2.4.6", "p", "2026-11-27")}
    assert sorted(found) == ["a.md", "b.md", "c.md"]
    assert found["a.md"].status == "fails" and found["a.md"].cells == 1
    assert found["a.md"].first == compat.Failure(2, 0, "AttributeError: no long")
    assert found["b.md"].status == "warnings" and found["c.md"].status == "works"


def test_only_notebooks_that_ran_are_sections_to_check() -> None:
    unrun = new_notebook()
    unrun.cells.append(new_code_cell("x", "c0"))
    assert not compat.ran(unrun)
    assert compat.ran(notebook([])) and compat.ran(notebook([FINE]))


def test_a_target_fails_changes_or_warns_from_its_run_and_the_comparison() -> None:
    before = {(p, "numpy"): notebook([FINE]) for p in ("a.md", "b.md", "c.md", "d.md")}
    after = {
        ("a.md", "numpy"): notebook([ERROR]),
        ("b.md", "numpy"): notebook([FINE]),
        ("c.md", "numpy"): notebook([WARNING]),
        ("d.md", "numpy"): notebook([FINE]),
    }

    def cell(page: str, *kinds: Any) -> CellDrift:
        return CellDrift(page, 3, "numpy", 1, "x", tuple(CellChange(k, "") for k in kinds))

    cells = (cell("a.md", "new-error"), cell("b.md", "changed"), cell("c.md", "new-warning"))
    drift = DriftReport("before", "after", {}, {}, cells, ())
    found = compat.judge_target("old", before, after, drift, "numpy 1.26.4", "p", "r.html", "d")
    status = {r.page: (r.status, r.cells, r.report) for r in found}
    assert status == {
        "a.md": ("fails", 1, "r.html#cell-1"),
        "b.md": ("changed", 1, "r.html#cell-2"),
        "c.md": ("warnings", 1, "r.html#cell-3"),
        "d.md": ("works", 0, "r.html"),
    }


def test_a_second_run_keeps_results_whose_keys_are_the_same() -> None:
    nb = notebook([FINE])
    key = compat.result_key(nb, "pins")
    kept = [compat.SectionResult("a.md", "numpy", "newest", "works", "numpy 2", key)]
    assert compat.reused(kept, {"a.md": key}) == kept
    assert compat.reused(kept, {"a.md": compat.result_key(nb, "other pins")}) is None
    edited = notebook([FINE], [FINE])
    assert compat.reused(kept, {"a.md": compat.result_key(edited, "pins")}) is None
    assert compat.reused(kept, {"a.md": key, "b.md": key}) is None  # a page added


def test_the_sections_that_newly_fail() -> None:
    def record(*failing: str) -> compat.CompatRecord:
        results = [
            compat.SectionResult(
                p, "jax", "newest", "fails" if p in failing else "works", "jax 1", ""
            )
            for p in ("a.md", "b.md")
        ]
        return compat.CompatRecord("2026-11-27T00:00:00Z", results=results)

    assert newly_failing(record("a.md"), record("a.md")) == ""
    text = newly_failing(record("a.md"), record("a.md", "b.md"))
    assert "- b.md [jax] with newest (jax 1)" in text and "a.md" not in text
    assert "- a.md [jax]" in newly_failing(None, record("a.md"))


def test_the_moving_packages_are_those_pinned() -> None:
    pins = {"torch": "2.13.0", "torchvision": "0.28.0", "numpy": "2.3.5"}
    assert moving(("torch",), pins) == ["torch", "torchvision"]
    jax = read_pins(Path(__file__).parents[2] / "polybook/requirements/cpu/jax.txt")
    assert moving(("jax",), jax) == ["chex", "flax", "jax", "jaxlib", "optax", "orbax-checkpoint"]


def test_compat_targets_are_named_files_of_the_book(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path / "book", "drift_book")
    config = root / "config.ini"
    text = config.read_text()
    config.write_text(text + "\n[compat]\ntargets = old=requirements/numpy-1.26.txt\n")
    assert targets_of(load_config(root)) == [
        ("newest", None),
        ("old", root / "requirements/numpy-1.26.txt"),
    ]
    for bad, said in (
        ("old=requirements/none.txt", "no such requirement file"),
        ("requirements/numpy-1.26.txt", "is not NAME=FILE"),
        ("built=requirements/numpy-1.26.txt", "names a target polybook checks itself"),
        ("up=../elsewhere.txt", "lies outside the book"),
    ):
        config.write_text(text + f"\n[compat]\nnewest = false\ntargets = {bad}\n")
        with pytest.raises(PolybookError, match=said) as raised:
            targets_of(load_config(root))
        assert str(raised.value.location) == f"config.ini:{len(text.splitlines()) + 4}"


def test_the_students_notebooks_carry_the_line(tmp_path: Path) -> None:
    results: list[dict[str, Any]] = [
        {"page": "a.md", "framework": "pytorch", "target": "built", "status": "works",
         "version": "torch 2.13.0", "checked": "2026-11-27"},
        {"page": "a.md", "framework": "pytorch", "target": "newest", "status": "fails",
         "version": "torch 2.14.1", "cells": 2, "report": "reports/pytorch-newest.html#cell-1",
         "checked": "2026-11-27"},
    ]  # fmt: skip
    line = compat_line(results, "a.md", "pytorch", "https://book.example/")
    assert line == (
        "Outputs from torch 2.13.0 · Fails with torch 2.14.1: 2 cells ([details]"
        "(https://book.example/compat/reports/pytorch-newest.html#cell-1)) · checked 27 November"
        " 2026"
    )
    assert compat_line(results, "a.md", "jax") == ""
    info = PageInfo("a.md", "A", "PyTorch", "Book", compat=line)
    nb = notebook([FINE])
    spec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    prose = Plain(Readable({}), tmp_path, "")
    first = student_notebook(nb, REGISTRY["colab"], info, spec, prose).cells[0]
    assert first.cell_type == "markdown" and "Fails with torch 2.14.1: 2 cells" in first.source
    page = PageInfo("a.md", "A", "PyTorch", "Book")
    plain = student_notebook(nb, REGISTRY["colab"], page, spec, prose)
    assert "Works with" not in plain.cells[0].source and "Fails" not in plain.cells[0].source


def test_a_book_without_compat_json_shows_nothing(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path / "book", "drift_book")
    book = load_config(root).book
    srcdir = tmp_path / "src"
    write_compat(book, srcdir)
    assert (srcdir / "_static/polybook-compat-data.js").read_text() == (
        "window.polybookCompatData = null;\n"
    )
    assert compat_pages(book) == []
    assert not (book.layout.site_extra / "compat").exists()
    # With a record: the data, its copy in the site, and the page.
    record = {"format": 1, "made": "2026-11-27T00:00:00Z", "frameworks": {}, "targets": [],
              "results": [{"page": "a.md", "framework": "numpy", "target": "newest",
                           "status": "works", "version": "numpy 2", "key": "k"}]}  # fmt: skip
    compat_json = book.layout.output_dir("compat") / "compat.json"
    compat_json.parent.mkdir(parents=True)
    compat_json.write_text(json.dumps(record))
    assert write_compat(book, srcdir)
    assert (
        '"made": "2026-11-27T00:00:00Z"' in (srcdir / "_static/polybook-compat-data.js").read_text()
    )
    assert (book.layout.site_extra / "compat/compat.json").is_file()
    (page,) = compat_pages(book)
    assert "polybook-compat-table" in "".join(page.lines.text)
    # The record gone: the site's copy goes too.
    compat_json.unlink()
    assert write_compat(book, srcdir)
    assert not (book.layout.site_extra / "compat").exists()


def test_a_committed_record_shows_where_the_build_has_none(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path / "book", "drift_book")
    book = load_config(root).book
    record = {"format": 1, "made": "2026-11-20T00:00:00Z", "frameworks": {}, "targets": [],
              "results": [{"page": "a.md", "framework": "numpy", "target": "newest",
                           "status": "works", "version": "numpy 2", "key": "k"}]}  # fmt: skip
    committed = root / "_compat" / "compat.json"
    committed.parent.mkdir()
    committed.write_text(json.dumps(record))
    srcdir = tmp_path / "src"
    assert write_compat(book, srcdir)  # a fresh clone shows the record the book commits
    assert "2026-11-20" in (srcdir / "_static/polybook-compat-data.js").read_text()
    assert (book.layout.site_extra / "compat/compat.json").read_text() == committed.read_text()
    # A check run since, in _build/compat, is newer than the committed one: it is shown.
    built = book.layout.output_dir("compat") / "compat.json"
    built.parent.mkdir(parents=True)
    built.write_text(json.dumps({**record, "made": "2026-11-27T00:00:00Z"}))
    assert write_compat(book, srcdir)
    assert "2026-11-27" in (srcdir / "_static/polybook-compat-data.js").read_text()
    assert committed in book.layout.compat_records and built in book.layout.compat_records


def test_a_report_read_in_the_site_links_each_cells_page_there(tmp_path: Path) -> None:
    cell = CellDrift("chapter/a.md", 12, "jax", 1, "x", (CellChange("changed", ""),))
    drift = DriftReport("before", "after", {}, {}, (cell,), ())
    root = copy_fixture(tmp_path / "book", "drift_book")
    report = root / "_build/compat/reports/jax-newest.html"
    html = render_html(drift, load_config(root).layout, report, "compat/reports")
    links = BeautifulSoup(html, "html.parser").select("article .links a")
    assert [(a["href"], a.get_text()) for a in links] == [
        ("../../chapter/a.html?tab=jax", "chapter/a.md, line 12")
    ]


def test_the_shipped_reports_link_pages_the_site_holds() -> None:
    reports = sorted((REPO / "_compat/reports").glob("*.html"))
    assert reports
    for report in reports:
        framework = report.name.split("-")[0]
        for link in BeautifulSoup(report.read_text(), "html.parser").select("a[href]"):
            href = str(link["href"])
            if href.startswith("#"):
                continue  # a cell of the report
            page, _, query = href.partition("?")
            assert page.startswith("../../") and page.endswith(".html"), (report.name, href)
            source = REPO / page.removeprefix("../../").replace(".html", ".md")
            assert source.is_file() and query == f"tab={framework}", (report.name, href)


@pytest.mark.slow
def test_a_report_changed_alone_is_shown_in_the_site_again(tmp_path: Path) -> None:
    config = "[project]\nname = c\ntitle = C\n[build]\ntabs = jax\neval_notebook = false\n"
    root = pages_book(tmp_path / "book", {"words": "Words.\n"}, config)
    shutil.copytree(REPO / "_compat", root / "_compat")  # a record of other pages: all it takes
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    report = root / "_build/html/compat/reports/jax-colab.html"
    assert "What changed: JAX with colab (jax 0.5.3)" in report.read_text()
    assert "checked again" not in report.read_text()
    source = root / "_compat/reports/jax-colab.html"
    source.write_text(source.read_text().replace("</body>", "<p>checked again</p></body>"))
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    assert "checked again" in report.read_text()
