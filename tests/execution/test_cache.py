"""The execution cache, counted by real runs: each kind of edit re-executes what it must."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.execution.jobs import Inventory
from polybook.execution.plan import EvalReport
from polybook.execution.stage import build_eval
from polybook.library.extract import extract_libraries
from polybook.library.stage import write_libraries
from polybook.pipeline.execution import BookEnvironments, execution
from polybook.source.book import load_book
from polybook.source.split import split_book

from ..books import copy_fixture as copy_book

pytestmark = pytest.mark.slow


def evaluate(root: Path) -> EvalReport:
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    notebooks = split_book(book, config.build.tabs, reporter)
    found = extract_libraries(notebooks, reporter)
    libraries = write_libraries(config.book, config.library, found, reporter)
    envs = BookEnvironments(config)
    report = build_eval(
        execution(config), envs, notebooks, libraries, reporter, inventory=Inventory(0)
    )
    assert not reporter.errors, reporter.errors
    return report


def ran(report: EvalReport) -> set[tuple[str, str]]:
    return {(path, fw) for path, fw, _ in report.ran}


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_book(tmp_path_factory.mktemp("cold") / "book")
    report = evaluate(root)
    assert len(report.ran) == 8 and not report.cached
    return root


@pytest.fixture
def warm(cold: Path, tmp_path: Path) -> Path:
    """A copy of the cold-built book, cache included."""
    return Path(shutil.copytree(cold, tmp_path / "book"))


def edit(root: Path, page: str, old: str, new: str) -> None:
    path = root / page
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_nothing_changed_runs_nothing(warm: Path) -> None:
    report = evaluate(warm)
    assert ran(report) == set() and len(report.cached) == 8


def test_prose_edit_runs_nothing(warm: Path) -> None:
    # New lines move every later block, and the library's source comments with them.
    edit(
        warm,
        "chap/tensors.md",
        "PyTorch calls them tensors.",
        "PyTorch says tensor.\n\nA new\nparagraph.",
    )
    edit(warm, "chap/more.md", "Uses what", "Builds on what")
    assert ran(evaluate(warm)) == set()


def test_a_new_prose_block_moves_cells_but_keeps_their_outputs(warm: Path) -> None:
    edit(
        warm,
        "chap/tensors.md",
        "The library sees what was saved:",
        ":begin_tab:`jax`\nA note for JAX readers.\n:end_tab:\n\nThe library sees what was saved:",
    )
    report = evaluate(warm)
    assert ran(report) == set()
    nb = report.executed[("chap/tensors.md", "mxnet")]
    cell = next(c for c in nb.cells if "print(name, d2l.double(2))" in c.source)
    assert cell.outputs[0]["text"] == "imperative 4\n"
    text = (warm / "chap/tensors.md").read_text().splitlines()
    line = cell.metadata["polybook"]["line"]
    assert text[line - 1].strip() == "name = 'imperative'"  # the line as it stands now


def test_one_framework_cell_edit_runs_only_that_notebook(warm: Path) -> None:
    edit(
        warm,
        "chap/tensors.md",
        "int(tf.reduce_sum(tf.range(3)))",
        "int(tf.reduce_sum(tf.range(4)))",
    )
    assert ran(evaluate(warm)) == {("chap/tensors.md", "tensorflow")}


def test_saved_function_edit_runs_that_framework_from_there_on(warm: Path) -> None:
    edit(warm, "chap/tensors.md", "    return 'jax'", "    return 'JAX'")
    assert ran(evaluate(warm)) == {("chap/tensors.md", "jax"), ("chap/more.md", "jax")}


def test_saved_function_on_the_last_page_runs_only_that_page(warm: Path) -> None:
    edit(warm, "chap/more.md", "return x * 3", "return 3 * x")
    expected = {("chap/more.md", fw) for fw in ("pytorch", "mxnet", "jax", "tensorflow")}
    assert ran(evaluate(warm)) == expected


def test_cache_survives_clean_and_can_be_cleared(warm: Path) -> None:
    for out in ("html", "eval", "site_src", "lib"):
        shutil.rmtree(warm / "_build" / out, ignore_errors=True)
    assert ran(evaluate(warm)) == set()
    assert main(["--root", str(warm), "cache", "clear"]) == 0
    assert len(ran(evaluate(warm))) == 8


HALF = '''
```{.python .input}
%%tab all
def half(x):  #@save
    """Half ``x``; no later page uses it."""
    return x / 2
```
'''


def add_half(root: Path) -> None:
    edit(root, "chap/tensors.md", "The library sees what was saved:", HALF + "\nThe library sees")


def test_a_comment_or_layout_edit_of_saved_code_runs_nothing(warm: Path) -> None:
    edit(
        warm,
        "chap/tensors.md",
        "    return x * 2\n",
        "    # doubling, spelled out\n    return (x *\n            2)  # twice\n",
    )
    assert ran(evaluate(warm)) == set()


def test_a_saved_function_edit_runs_its_page_and_its_users_only(warm: Path) -> None:
    add_half(warm)
    every = {"pytorch", "mxnet", "jax", "tensorflow"}
    assert ran(evaluate(warm)) == {("chap/tensors.md", fw) for fw in every}
    edit(warm, "chap/tensors.md", "return x / 2", "return x * 0.5")
    assert ran(evaluate(warm)) == {("chap/tensors.md", fw) for fw in every}  # not more.md
    edit(warm, "chap/more.md", "print(d2l.double(5))", "print(d2l.double(5), d2l.half(4))")
    assert ran(evaluate(warm)) == {("chap/more.md", fw) for fw in every}
    edit(warm, "chap/tensors.md", "return x * 0.5", "return 0.5 * x")
    assert ran(evaluate(warm)) == {
        (page, fw) for page in ("chap/tensors.md", "chap/more.md") for fw in every
    }


def test_dynamic_library_access_falls_back_to_every_visible_block(warm: Path) -> None:
    add_half(warm)
    edit(
        warm,
        "chap/more.md",
        "from d2l import torch as d2l\n",
        "from d2l import torch as d2l\nprint(getattr(d2l, 'double')(1))\n",
    )
    evaluate(warm)
    edit(warm, "chap/tensors.md", "return x / 2", "return x * 0.5")
    every = {("chap/tensors.md", fw) for fw in ("pytorch", "mxnet", "jax", "tensorflow")}
    assert ran(evaluate(warm)) == every | {("chap/more.md", "pytorch")}


def test_two_checkouts_share_one_cache_folder(tmp_path: Path) -> None:
    shared = tmp_path / "shared-cache"
    first = copy_book(tmp_path / "first")
    second = copy_book(tmp_path / "second")
    for root, value in ((first, str(shared)), (second, f"file://{shared}")):  # path, URL
        text = (root / "config.ini").read_text()
        (root / "config.ini").write_text(text.replace("[build]\n", f"[build]\ncache = {value}\n"))
    assert len(evaluate(first).ran) == 8
    assert len(list(shared.rglob("*.ipynb"))) == 8
    report = evaluate(second)
    assert ran(report) == set() and len(report.cached) == 8
    nb = report.executed[("chap/tensors.md", "pytorch")]
    assert nb.metadata["polybook"]["run"]["date"]  # the provenance travels with the entry
