"""The executors behind one protocol: ``[build] executor`` picks one through the registry, and
a new executor is a module with ``create`` and one entry there."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import Book, load_config
from polybook.config.schema import KEYS, BuildSection
from polybook.diagnostics import PolybookError, Reporter
from polybook.execution.executors.local import LocalExecutor
from polybook.execution.executors.none import NoExecutor
from polybook.execution.executors.protocol import ExecutorSetup
from polybook.execution.executors.registry import (
    EXECUTORS,
    Registered,
    check_executor,
    create_executor,
)
from polybook.execution.jobs import Inventory, Job, JobResult
from polybook.execution.stage import build_eval
from polybook.pipeline.execution import BookEnvironments, execution
from tools.config_table import reference as with_references

from ..books import code, libraries, pages_book, with_build

REPO = Path(__file__).resolve().parents[2]


class Recording:
    """An executor elsewhere: it hands each notebook back as run, and records the jobs."""

    on_this_host = False

    def __init__(self) -> None:
        self.submitted: list[str] = []
        self.expected: list[str] = []
        self.closed = False

    def expect(self, jobs: list[Job]) -> None:
        self.expected = [job.name for job in jobs]

    def submit(self, job: Job) -> Future[JobResult]:
        self.submitted.append(job.name)
        done: Future[JobResult] = Future()
        done.set_result(JobResult(job, "ok", notebook=job.notebook, seconds=0.5))
        return done

    def cancel(self) -> None:
        """Nothing is in flight."""

    def shutdown(self) -> None:
        self.closed = True


MADE: list[Recording] = []


def create(book: Book, build: BuildSection, inventory: Inventory | None) -> ExecutorSetup:
    """The factory of the executor this module registers in the tests."""
    MADE.append(Recording())
    return ExecutorSetup(MADE[-1], inventory or Inventory(), 2)


def test_the_registry_names_what_config_ini_the_command_line_and_the_docs_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = next(k for k in KEYS if (k.section, k.name) == ("build", "executor"))
    assert key.default in EXECUTORS and not key.choices  # the names live in the registry
    docs = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert with_references(docs) == docs, "run .envs/tool/bin/python tools/config_table.py"
    assert all(f"- `{name}`: " in docs for name in EXECUTORS)
    root = pages_book(tmp_path, {"a": "# A\n"})
    with pytest.raises(SystemExit) as refused:  # argparse: a name the registry lacks
        main(["build", "lib", "--executor", "elsewhere", "--root", str(root)])
    assert refused.value.code == 2
    monkeypatch.setitem(EXECUTORS, "elsewhere", Registered(__name__, "an executor elsewhere"))
    assert main(["build", "lib", "--executor", "elsewhere", "--root", str(root)]) == 0


def test_an_unknown_executor_is_an_error_at_its_line(tmp_path: Path) -> None:
    book = "[project]\nname = b\n[build]\ntabs = pytorch\nexecutor = dusk\n"
    root = pages_book(tmp_path, {"a": "# A\n"}, book)
    config = load_config(root)  # the schema takes any name: the registry judges it
    for attempt in (
        lambda: check_executor(config.root, config.build.executor),
        lambda: create_executor(config.book, config.build),
    ):
        with pytest.raises(PolybookError) as caught:
            attempt()
        assert str(caught.value).startswith("config.ini:5: [build] executor: 'dusk' is not one")
        assert "did you mean 'dask'?" in str(caught.value)
    assert main(["build", "lib", "--root", str(root)]) != 0  # refused before anything runs
    assert not (root / "_build").exists()


def test_each_name_makes_its_executor(tmp_path: Path) -> None:
    config = load_config(pages_book(tmp_path, {"a": "# A\n"}))
    none = with_build(config, executor="none")
    nowhere = create_executor(none.book, none.build)
    assert isinstance(nowhere.executor, NoExecutor)
    assert (nowhere.inventory, nowhere.slots, nowhere.executor.on_this_host) == (
        Inventory(),
        1,
        False,
    )
    three = with_build(config, jobs=3)
    local = create_executor(three.book, three.build, Inventory(gpus=2))
    try:
        assert isinstance(local.executor, LocalExecutor) and local.executor.on_this_host
        assert (local.inventory, local.slots) == (Inventory(gpus=2), 3)
    finally:
        local.executor.shutdown()


def test_a_new_executor_is_one_entry_in_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(EXECUTORS, "elsewhere", Registered(__name__, "an executor elsewhere"))
    book = "[build]\ntabs = pytorch\nresources = data.txt\nexecutor = elsewhere\n"
    root = pages_book(tmp_path, {"a": code("x = 1"), "b": code("y = 2")}, book)
    (root / "data.txt").write_text("read by the pages\n", encoding="utf-8")
    config = load_config(root)  # config.ini names it: nothing else declares it
    reporter = Reporter()
    notebooks, found = libraries(root, reporter)
    report = build_eval(execution(config), BookEnvironments(config), notebooks, found, reporter)
    assert not reporter.errors
    recording = MADE[-1]
    assert sorted(recording.submitted) == ["a.md [pytorch]", "b.md [pytorch]"]
    assert sorted(recording.expected) == sorted(recording.submitted) and recording.closed
    assert sorted(path for path, _, _ in report.ran) == ["a.md", "b.md"]
    assert (root / "_build" / "eval" / "pytorch" / "a.ipynb").is_file()
    assert not (root / "_build" / "eval" / "pytorch" / "data.txt").exists()  # not run here


def test_a_setting_the_executor_does_not_honour_is_a_warning_at_its_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    book = "[project]\nname = b\n[build]\ntabs = pytorch\nexecutor = dask\ngpu_share = 2\n"
    root = pages_book(tmp_path, {"a": "# A\n"}, book)
    assert main(["build", "lib", "--root", str(root)]) == 0  # nothing runs: lib executes none
    assert "config.ini:6: [build] gpu_share is not honoured by executor 'dask'" in caplog.text
    local = book.replace("executor = dask\n", "")  # local shares a GPU as asked
    root = pages_book(tmp_path / "local", {"a": "# A\n"}, local)
    caplog.clear()
    assert main(["build", "lib", "--root", str(root)]) == 0
    assert "not honoured" not in caplog.text
