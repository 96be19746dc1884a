"""The command line: finding the book, options after the subcommand, warnings kept with the
build and ``--strict``, ``polybook check`` on the shipped book."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polybook.commands.cli import _parser, main
from polybook.commands.handlers import HANDLERS

from ..books import REPO, index_page, write_book

SAVED = "```{{.python .input}}\n%%tab {tabs}\ndef {name}(x):  #@save\n    return x\n```\n"


PAGE = "# Page\n\n" + SAVED.format(tabs="pytorch, jax", name="shared") + "\n"
PAGE += SAVED.format(tabs="pytorch", name="only_torch")
# Two frameworks; ``only_torch`` is saved for PyTorch alone (a parity warning).
BOOK = {"index.md": index_page("Book", ["chap/page"]), "chap/page.md": PAGE}
TWO_TABS = "[build]\ntabs = pytorch, jax\neval_notebook = false\n"


def test_the_book_is_found_from_a_sub_folder_like_git_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_book(tmp_path / "book", BOOK, TWO_TABS)
    monkeypatch.chdir(root / "chap")
    assert main(["--quiet", "build", "lib"]) == 0
    assert (root / "d2l" / "torch.py").is_file()
    monkeypatch.chdir(tmp_path)
    assert main(["--quiet", "build", "lib"]) == 1
    err = capsys.readouterr().err
    assert f"no config.ini in {tmp_path} or any parent folder" in err
    assert "--root DIR" in err


def test_root_and_quiet_are_accepted_after_the_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_book(tmp_path / "book", BOOK, TWO_TABS)
    assert main(["build", "lib", "--root", str(root), "--quiet"]) == 0
    assert (root / "d2l" / "jax.py").is_file()
    assert main(["check", "--root", str(tmp_path)]) == 1
    assert f"no config.ini in {tmp_path}: --root names the folder" in capsys.readouterr().err


def test_warnings_are_shown_again_by_a_no_op_build_and_fail_it_when_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    root = write_book(tmp_path / "book", BOOK, TWO_TABS)
    parity = (
        "chap/page.md:11: only_torch is not in the library of jax (declare it in [library]"
        " framework_specific) [polybook.library.parity]"
    )
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    assert caplog.messages == [parity]
    caplog.clear()
    assert main(["--root", str(root), "build", "lib"]) == 0
    assert caplog.messages == ["nothing changed since the last build", parity]
    assert main(["--quiet", "--root", str(root), "build", "lib", "--strict"]) == 1
    err = capsys.readouterr().err
    assert "warnings are errors here" in err and parity in err
    with (root / "config.ini").open("a") as handle:
        handle.write("strict = true\n")
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 1


def test_check_passes_on_the_shipped_book_and_fails_on_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quiet", "--root", str(REPO), "check"]) == 0
    root = write_book(tmp_path / "book", BOOK, TWO_TABS)
    assert main(["--quiet", "--root", str(root), "check"]) == 1
    assert "[polybook.library.parity]" in capsys.readouterr().err
    assert not (root / "d2l").exists()  # check writes nothing
    assert not (root / "_build").exists()


def test_the_command_ends_at_once_and_loses_nothing_it_printed(tmp_path: Path) -> None:
    """The ``polybook`` command skips Python's teardown: its messages (through pipes, so
    buffered), its status and the files it wrote are all there."""
    root = write_book(tmp_path / "book", BOOK, TWO_TABS)
    polybook = [sys.executable, "-m", "polybook", "--root", str(root)]
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*polybook, *args], capture_output=True, text=True, env=buffered, check=False
        )

    command = ["build", "lib"]
    done = run(*command, "--strict")
    assert done.returncode == 1
    assert "only_torch is not in the library of jax" in done.stderr
    assert done.stderr.rstrip().endswith("[polybook.library.parity]")
    assert "def only_torch" in (root / "d2l" / "torch.py").read_text(encoding="utf-8")
    again = run(*command)
    assert again.returncode == 0
    assert "nothing changed since the last build" in again.stderr
    assert "only_torch is not in the library of jax" in again.stderr  # shown again
    cleared = run("cache", "clear")
    assert (cleared.returncode, cleared.stdout) == (0, "removed 0 cached notebooks\n")


def test_the_library_path_and_the_head_start_import_no_notebook_machinery() -> None:
    # `build lib` runs in a second on a 200-page book: nbformat's import alone is 0.15 s.
    # A cold build's head start runs before its first zygote starts, with one CPU idle.
    probe = (
        "import sys, polybook.commands.cli, polybook.pipeline.graph, polybook.commands.check;"
        " import polybook.execution.kernels.head_start;"
        " print(sorted({'nbformat', 'nbclient', 'jupyter_client'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_each_subcommand_has_a_handler_of_its_own() -> None:
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sub.choices) == sorted(HANDLERS)
    assert len({id(handler) for handler in HANDLERS.values()}) == len(HANDLERS)
