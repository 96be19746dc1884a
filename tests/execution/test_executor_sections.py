"""An executor carries its own section, ``[executor-<name>]``, declared by its registry entry
(``Registered.section``): the loader reads and checks it as the book's other sections, its
keys are options of ``polybook build`` (and of ``polybook worker``, for the keys the worker
reads), and its values reach the executor's ``create``. Dask's scheduler is
``[executor-dask] scheduler``; ``[build] dask_scheduler`` stays as a deprecated alias."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from polybook.commands.arguments import config_overrides
from polybook.commands.cli import _parser, main
from polybook.commands.handlers import _book_here
from polybook.commands.worker import worker_settings
from polybook.config import Book, load_config
from polybook.config.executors import EXECUTORS, Registered, executor_keys
from polybook.config.schema import BuildSection
from polybook.config.schema.executors import DaskSection
from polybook.config.schema.key import key
from polybook.diagnostics import PolybookError
from polybook.execution.executors.protocol import ExecutorSetup
from polybook.execution.executors.registry import create_executor
from polybook.execution.jobs import Inventory, Job, JobResult

from ..books import code, pages_book, with_build

BOOK = "[project]\nname = b\n[build]\ntabs = pytorch\n"


def _warnings(root: Path, overrides: dict[str, str] | None = None) -> list[str]:
    return [str(d) for d in load_config(root, overrides).ignored]


def test_the_dask_section_is_read_and_its_names_checked_at_their_lines(tmp_path: Path) -> None:
    book = BOOK + (
        "[executor-dask]\nscheduler = tcp://here:8786\nschedular = tcp://typo:1\n"
        "[executor-dsk]\nscheduler = x\n[executor-local]\nworkers = 2\n"
    )
    root = pages_book(tmp_path, {"a": "# A\n"}, book)
    config = load_config(root)
    assert config.executor_settings["dask"] == DaskSection(scheduler="tcp://here:8786")
    assert _warnings(root) == [
        "config.ini:7: unknown key [executor-dask] schedular is ignored; did you mean"
        " `scheduler`? [polybook.config]",
        "config.ini:8: [executor-dsk] is ignored: unknown executor 'dsk'; did you mean 'dask'?"
        " [polybook.config]",
        "config.ini:10: [executor-local] is ignored: executor 'local' has no settings"
        " [polybook.config]",
    ]
    moved = pages_book(tmp_path / "moved", {"a": "# A\n"}, BOOK + "scheduler = tcp://h:1\n")
    assert _warnings(moved) == [
        "config.ini:5: unknown key [build] scheduler is ignored; it belongs in [executor-dask]"
        " [polybook.config]"
    ]


def test_the_deprecated_build_key_still_names_the_scheduler_with_a_warning_at_its_line(
    tmp_path: Path,
) -> None:
    old = pages_book(tmp_path / "old", {"a": "# A\n"}, BOOK + "dask_scheduler = tcp://old:1\n")
    assert load_config(old).executor_settings["dask"].scheduler == "tcp://old:1"  # type: ignore[attr-defined]
    assert _warnings(old) == [
        "config.ini:5: [build] dask_scheduler is deprecated: write it as [executor-dask]"
        " scheduler [polybook.config]"
    ]
    both = BOOK + "dask_scheduler = tcp://old:1\n[executor-dask]\nscheduler = tcp://new:1\n"
    root = pages_book(tmp_path / "both", {"a": "# A\n"}, both)
    assert load_config(root).executor_settings["dask"].scheduler == "tcp://new:1"  # type: ignore[attr-defined]
    assert _warnings(root) == [
        "config.ini:5: [build] dask_scheduler is deprecated, and [executor-dask] scheduler is"
        " set too: [executor-dask] scheduler is used [polybook.config]"
    ]


def test_scheduler_on_the_command_line_is_the_sections_key_over_the_books(tmp_path: Path) -> None:
    book = BOOK + "dask_scheduler = tcp://old:1\n[executor-dask]\nscheduler = tcp://book:1\n"
    root = pages_book(tmp_path, {"a": "# A\n"}, book)
    args = _parser().parse_args(
        ["build", "eval", "--scheduler", "tcp://cli:1", "--root", str(root)]
    )
    overrides = config_overrides(args)
    assert overrides == {"executor-dask.scheduler": "tcp://cli:1"}
    config = load_config(root, overrides)
    assert config.executor_settings["dask"] == DaskSection(scheduler="tcp://cli:1")
    assert _warnings(root, overrides) == [
        "config.ini:5: [build] dask_scheduler is deprecated, and [executor-dask] scheduler is"
        " set too: [executor-dask] scheduler is used [polybook.config]"
    ]


def test_dask_without_a_scheduler_is_refused_naming_its_section(tmp_path: Path) -> None:
    config = with_build(load_config(pages_book(tmp_path, {"a": "# A\n"})), executor="dask")
    with pytest.raises(PolybookError) as caught:
        create_executor(config.book, config.build, None, config.executor_settings)
    assert caught.value.diagnostic.subtype == "exec.dask"
    assert str(caught.value).startswith("[executor-dask] scheduler: executor = dask needs")


def test_polybook_worker_takes_its_scheduler_from_the_book_or_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    book = BOOK + "[executor-dask]\nscheduler = tcp://book:1\n"
    root = pages_book(tmp_path / "book", {"a": "# A\n"}, book)
    for given, expected in (([], "tcp://book:1"), (["--scheduler", "tcp://cli:1"], "tcp://cli:1")):
        args = _parser().parse_args(["worker", "--root", str(root), *given])
        settings = worker_settings("dask", EXECUTORS["dask"], args, _book_here(args))
        assert settings == DaskSection(scheduler=expected)
    elsewhere = tmp_path / "no-book"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    args = _parser().parse_args(["worker", "--scheduler", "tcp://cli:2"])
    assert worker_settings("dask", EXECUTORS["dask"], args, None) == DaskSection("tcp://cli:2")
    assert main(["worker"]) == 1  # no scheduler anywhere: said, not a usage error
    err = capsys.readouterr().err
    assert "[executor-dask] scheduler: polybook worker needs the Dask scheduler" in err
    assert "Traceback" not in err


@dataclass(frozen=True)
class NearSection:
    """``[executor-near]``: the test's executor's settings."""

    SECTION: ClassVar[str] = "executor-near"

    greeting: str = key("str", "hello", "what each notebook's cells say", read_by=("eval",))
    jobs: int = key("int", 1, "how many at once", minimum=1, read_by=("eval",))


GIVEN: list[NearSection] = []


class Greeting:
    """An executor elsewhere: each code cell says the greeting of its section."""

    on_this_host = False

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    def expect(self, jobs: list[Job]) -> None:
        """Nothing to get ready."""

    def submit(self, job: Job) -> Future[JobResult]:
        for cell in job.notebook.cells:
            if cell.cell_type == "code":
                output = {"output_type": "stream", "name": "stdout", "text": self.greeting}
                cell["outputs"] = [output]
        done: Future[JobResult] = Future()
        done.set_result(JobResult(job, "ok", notebook=job.notebook, seconds=0.1))
        return done

    def cancel(self) -> None:
        """Nothing is in flight."""

    def shutdown(self) -> None:
        """Nothing is held."""


def create(
    book: Book, build: BuildSection, inventory: Inventory | None, settings: NearSection
) -> ExecutorSetup:
    """The factory of the executor this module registers: it takes its section's values."""
    GIVEN.append(settings)
    return ExecutorSetup(Greeting(settings.greeting), inventory or Inventory(), settings.jobs)


@pytest.fixture
def near(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = Registered(__name__, "greets", section=NearSection)
    monkeypatch.setitem(EXECUTORS, "near", entry)


@pytest.mark.usefixtures("near")
def test_a_new_executors_section_is_read_its_keys_are_options_and_create_gets_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = BOOK + "executor = near\n[executor-near]\ngreeting = hi from config\n"
    root = pages_book(tmp_path / "config", {"a": code("x = 1")}, book)
    assert main(["--quiet", "build", "eval", "--root", str(root)]) == 0
    assert GIVEN[-1] == NearSection(greeting="hi from config")
    notebook = (root / "_build" / "eval" / "pytorch" / "a.ipynb").read_text(encoding="utf-8")
    assert "hi from config" in notebook
    root = pages_book(tmp_path / "options", {"a": code("x = 1")}, book)
    # --jobs is polybook build's own: the section's jobs is --near-jobs
    command = ["build", "eval", "--greeting", "hi from the command line", "--near-jobs", "3"]
    assert main(["--quiet", *command, "--root", str(root)]) == 0
    assert GIVEN[-1] == NearSection(greeting="hi from the command line", jobs=3)
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--greeting GREETING what each notebook's cells say ([executor-near] greeting)" in said
    assert "--near-jobs JOBS how many at once ([executor-near] jobs)" in said
    assert main(["build", "eval", "--near-jobs", "0", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "command line: [executor-near] jobs: 0 is too small: the least accepted is 1" in err


@pytest.mark.usefixtures("near")
def test_a_bad_value_in_a_new_executors_section_is_an_error_at_its_line(tmp_path: Path) -> None:
    book = BOOK + "executor = near\n[executor-near]\njobs = many\n"
    root = pages_book(tmp_path, {"a": "# A\n"}, book)
    with pytest.raises(PolybookError) as caught:
        load_config(root)
    assert str(caught.value).startswith(
        "config.ini:7: [executor-near] jobs: 'many' is not an integer"
    )


def test_every_key_of_an_executors_section_declares_its_readers() -> None:
    assert [f"[{k.section}] {k.name}" for k in executor_keys() if not k.read_by] == []
    assert all(
        entry.section is None or f"executor-{name}" == entry.section.SECTION
        for name, entry in EXECUTORS.items()
    )
