"""Broken framework environments: one whose kernel cannot run, one that cannot be set up.
The message names the notebook, the framework and the command that repairs it; once
repaired, the next build completes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.environments import venvs
from polybook.layout import EnvsFolder

from ..books import cells_book, looks_installed
from .builds import polybook

pytestmark = pytest.mark.slow


def fake_environment(envs_dir: Path) -> None:
    """A pytorch environment that looks set up but whose Python has no ipykernel."""
    env = looks_installed(venvs.environment("pytorch", "cpu", EnvsFolder(envs_dir, shared=True)))
    venvs.write_kernelspec(env)


def book_with_envs_dir(tmp_path: Path) -> Path:
    """A one-page book whose environments live in ``tmp_path/envs`` (empty so far)."""
    root = cells_book(tmp_path / "book", {"page": "print(1)"})
    with (root / "config.ini").open("a") as handle:
        handle.write(f"envs_dir = {tmp_path / 'envs'}\n")
    return root


def test_a_broken_environment_is_reported_at_the_notebook_with_the_repair_command(
    tmp_path: Path,
) -> None:
    root = book_with_envs_dir(tmp_path)
    fake_environment(tmp_path / "envs")
    build = polybook(root, "build", "eval")
    _, err = build.communicate(timeout=180)
    assert build.returncode == 1
    assert "page.md [pytorch]: the pytorch kernel could not run the notebook" in err
    assert "`polybook env setup --tab pytorch` repairs it" in err
    assert "[polybook.exec.kernel]" in err
    assert "worker process died" not in err
    # Repaired (here: the book's own environments again), the next build completes.
    config = (root / "config.ini").read_text().splitlines()
    (root / "config.ini").write_text("\n".join(x for x in config if "envs_dir" not in x))
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 0


def test_an_environment_that_cannot_be_set_up_names_the_framework_and_the_command(
    tmp_path: Path,
) -> None:
    root = book_with_envs_dir(tmp_path)
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path), "PIP_CONFIG_FILE": os.devnull}
    build = polybook(root, "build", "eval", env=offline)
    _, err = build.communicate(timeout=300)
    assert build.returncode == 1
    assert "the pytorch environment could not be set up" in err
    assert "polybook env setup --tab pytorch" in err
