"""Environments that never half-exist: where each lives (a book's own folder, a folder books
share, one per requirement set), what is wrong with a broken one, and set-ups that run at
once, are killed, or find a venv without pip. The set-ups use tiny frameworks declared as
data (a small pure-Python package, with ipykernel where notebooks run), in the book's own
``.envs``: never the shipped frameworks' environments."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.environments import atomic, venvs
from polybook.layout import ENVS_VARIABLE, EnvsFolder, envs_folder
from polybook.render.outputs import path_roots, scrub

from ..books import looks_installed
from ..environments import link_environments
from ..tiny_envs import environment, polybook, run, tiny_book

# Where environments live


def test_a_book_owns_its_envs_and_a_shared_folder_keys_them_by_requirement_set(
    tmp_path: Path,
) -> None:
    own = tiny_book(tmp_path / "own", "tiny")
    assert load_config(own).envs == EnvsFolder(own.resolve() / ".envs")
    env = environment(own, "tiny")
    assert env.path == own.resolve() / ".envs" / "tiny"
    assert env.kernels_dir == own.resolve() / ".envs" / "kernels"
    shared = str(tmp_path / "shared")
    one = environment(tiny_book(tmp_path / "one", "tiny", shared), "tiny")
    same = environment(tiny_book(tmp_path / "same", "tiny", shared), "tiny")
    other_root = tiny_book(tmp_path / "other", "tiny", shared)
    (other_root / "requirements" / "tiny.txt").write_text("tabulate==0.8.10\nipykernel==7.1.0\n")
    other = environment(other_root, "tiny")
    assert one.path == same.path  # the same pins: one environment
    assert one.path != other.path  # other pins under one framework name: never shared
    assert {one.path.name[:5], other.path.name[:5]} == {"tiny-"}
    assert one.kernels_dir != other.kernels_dir  # each its own kernel, named alike
    assert one.kernel_name == other.kernel_name == "polybook-tiny"
    assert envs_folder(own, shared).shared and not envs_folder(own, str(own / ".envs")).shared


def test_what_is_wrong_with_an_environment_is_said(tmp_path: Path) -> None:
    env = environment(tiny_book(tmp_path / "book", "bare"), "bare")
    assert venvs.problem(env) == "it is not set up"
    looks_installed(env)
    assert venvs.problem(env) == ""
    stamp = env.path / venvs.STAMP
    stamp.write_text("0" * 64 + "\n")
    assert venvs.problem(env).startswith("its stamp is stale: it was installed from other pins")
    stamp.unlink()
    assert venvs.problem(env).startswith("its install did not finish (no stamp")
    stamp.write_text(env.requirements_hash() + "\n")
    (pip,) = env.path.glob("lib/python*/site-packages/pip")
    pip.unlink()
    assert venvs.problem(env) == "it has no pip"
    config = env.path / "pyvenv.cfg"
    text = config.read_text()
    config.write_text(text.replace("home = ", f"home = {tmp_path / 'gone'}\nwas = ", 1))
    assert venvs.problem(env) == (
        f"its interpreter is missing (the Python it was made from, in {tmp_path / 'gone'}, is gone)"
    )
    config.write_text(text)
    interpreter = env.python.resolve().name
    (env.path / "bin" / interpreter).unlink()
    (env.path / "bin" / interpreter).symlink_to(tmp_path / "gone" / interpreter)
    assert venvs.problem(env).startswith("its interpreter is missing (bin/python links to")
    assert not venvs.is_ready(env)


# Set-ups that meet, die or find a broken venv


@pytest.mark.slow
def test_two_setups_at_once_both_succeed_and_the_book_then_builds(tmp_path: Path) -> None:
    """Each command sets up two environments side by side; the two commands meet on both."""
    root = tiny_book(tmp_path / "book", "tiny, mini")
    first, second = polybook(root, "env", "setup"), polybook(root, "env", "setup")
    answers = [first.communicate(timeout=600), second.communicate(timeout=600)]
    assert (first.returncode, second.returncode) == (0, 0), answers
    assert any("waiting for another set-up of the" in err for _, err in answers), answers
    for name in ("tiny", "mini"):
        env = environment(root, name)
        assert venvs.is_ready(env) and atomic.leftovers(env.path) == []
    built = run(root, "--quiet", "build", "eval")
    assert built.returncode == 0, built.stderr
    for name, module in (("tiny", "tabulate"), ("mini", "toolz")):
        executed = root / "_build" / "eval" / name / "page.ipynb"
        assert f"{name} {module}" in executed.read_text()


@pytest.mark.slow
def test_a_venv_without_pip_is_rebuilt_by_one_setup(tmp_path: Path) -> None:
    root = tiny_book(tmp_path / "book", "bare")
    assert run(root, "env", "setup", "--no-verify").returncode == 0
    env = environment(root, "bare")
    (pip,) = env.path.glob("lib/python*/site-packages/pip")
    shutil.rmtree(pip)
    assert venvs.problem(env) == "it has no pip"
    repaired = run(root, "env", "setup", "--no-verify")
    assert repaired.returncode == 0, repaired.stderr
    assert f"rebuilding the bare environment ({env.path}): it has no pip" in repaired.stderr
    assert venvs.problem(env) == "" and venvs.is_ready(env)
    # Built elsewhere and renamed into place: its scripts name where it is now.
    assert (env.path / "bin" / "pip").read_text().startswith(f"#!{env.path}/bin/python")
    pip_script = [str(env.path / "bin" / "pip"), "--version"]
    version = subprocess.run(pip_script, capture_output=True, check=False)
    assert version.returncode == 0 and str(env.path) in version.stdout.decode()


@pytest.mark.slow
def test_sigkill_during_setup_leaves_nothing_the_next_setup_trusts(tmp_path: Path) -> None:
    root = tiny_book(tmp_path / "book", "bare")
    env = environment(root, "bare")
    setup = polybook(root, "env", "setup", "--no-verify")
    try:
        deadline = time.monotonic() + 120
        while not atomic.leftovers(env.path) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert atomic.leftovers(env.path), "the set-up never started building"
        os.kill(setup.pid, signal.SIGKILL)  # polybook alone: pip, if running, goes on
        setup.wait(timeout=30)
        assert not env.path.exists() and not venvs.is_ready(env)
        assert venvs.set_up_environments(env.path.parent) == []
        again = run(root, "env", "setup", "--no-verify")
        assert again.returncode == 0, again.stderr
        assert "left by a set-up of the bare environment" in again.stderr
        assert "that did not finish" in again.stderr
        assert venvs.is_ready(env)
        (found,) = venvs.set_up_environments(env.path.parent)
        assert found.path == env.path
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(setup.pid, signal.SIGKILL)  # what it started, still running
        setup.communicate(timeout=30)


def _holding(env: venvs.Environment, *pins: str) -> venvs.Environment:
    """``env`` (:func:`looks_installed`) holding ``pins``: their metadata, and modules of
    their names that import."""
    (site,) = env.path.glob("lib/python*/site-packages")
    for pin in pins:
        name, _, version = pin.partition("==")
        (site / f"{name}-{version}.dist-info").mkdir()
        (site / f"{name}.py").write_text(f"__version__ = {version!r}\n")
    return env


def test_doctor_says_what_is_missing_and_the_command_that_fixes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tiny_book(tmp_path / "book", "bare, mini")
    mini = looks_installed(environment(root, "mini"))
    venvs.write_kernelspec(mini)
    assert main(["--root", str(root), "doctor"]) == 1  # bare is not set up
    out = capsys.readouterr().out
    assert f"environments in {root.resolve() / '.envs'} (the book's own):" in out
    assert f"  ✗ bare          {root.resolve() / '.envs' / 'bare'}: it is not set up" in out
    assert "      fix: polybook env setup --tab bare" in out
    # Its stamp says the install finished; none of its packages is there.
    assert (
        f"  ✗ mini          {mini.path}: its packages do not match its pins: toolz==1.2.0,"
        " ipykernel==7.1.0 not installed\n      fix: polybook env setup --tab mini"
    ) in out
    _holding(mini, "toolz==1.2.0", "ipykernel==7.1.0")
    assert main(["--root", str(root), "doctor"]) == 1
    assert f"  ✓ mini          toolz 1.2.0, cpu set, in {mini.path}; kernel polybook-mini" in (
        capsys.readouterr().out
    )
    for topic in ("GPUs", "TeX (PDF)", "Chromium", "node assets"):
        assert f" {topic} " in out
    assert "  ✓ installer     uv 0.13.8 (" in out  # pinned in requirements/tool.txt
    looks_installed(environment(root, "bare"))
    _holding(environment(root, "bare"), "toolz==1.2.0")
    assert main(["--root", str(root), "doctor"]) == 1  # it cannot import ipykernel
    assert "it cannot import ipykernel and toolz" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    assert main(["doctor"]) == 0  # no book here: the host alone
    assert "no book here" in capsys.readouterr().out


def test_doctor_runs_an_existing_python_before_it_says_it_is_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tiny_book(tmp_path / "book", "mini")
    config = (root / "config.ini").read_text()
    missing = tmp_path / "no" / "python"
    (root / "config.ini").write_text(config + f"\n[env-mini]\npython = {missing}\n")
    assert main(["--root", str(root), "doctor"]) == 1
    out = capsys.readouterr().out
    assert f"  ✗ mini          an existing Python: {missing} does not run" in out
    assert "fix: point [env-mini] python at a Python that imports toolz and ipykernel" in out
    bare = looks_installed(environment(root, "mini"))  # a Python that imports neither
    (root / "config.ini").write_text(config + f"\n[env-mini]\npython = {bare.python}\n")
    assert main(["--root", str(root), "doctor"]) == 1
    assert "cannot import ipykernel and toolz (ModuleNotFoundError" in capsys.readouterr().out
    _holding(bare, "toolz==1.2.0", "ipykernel==7.1.0")
    assert main(["--root", str(root), "doctor"]) == 0
    assert f"  ✓ mini          an existing Python: {bare.python}, imports toolz" in (
        capsys.readouterr().out
    )


@pytest.mark.slow
def test_two_pytorch_setups_at_once_on_a_new_book_both_succeed_and_it_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's own case, on the shipped pytorch environment through a folder of links
    (shared by books: the new book pins the same set, so it finds it)."""
    monkeypatch.setenv(ENVS_VARIABLE, str(link_environments(tmp_path / "envs")))
    assert main(["new", str(tmp_path / "book"), "--frameworks", "pytorch"]) == 0
    root = tmp_path / "book"
    first, second = (polybook(root, "env", "setup", "--tab", "pytorch") for _ in range(2))
    answers = [first.communicate(timeout=600), second.communicate(timeout=600)]
    assert (first.returncode, second.returncode) == (0, 0), answers
    assert not list((tmp_path / "envs").glob(".pytorch*"))  # nothing half-made beside it
    built = run(root, "--quiet", "build", "eval", "--tab", "pytorch")
    assert built.returncode == 0, built.stderr
    executed = root / "_build" / "eval" / "pytorch" / "chapter_intro" / "tensors.ipynb"
    assert "tensor([1., 1., 1.])" in executed.read_text()


def test_outputs_name_an_environment_by_its_framework_wherever_it_lives(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    root = tiny_book(tmp_path / "book", "tiny", str(shared))
    env = environment(root, "tiny")
    env.path.mkdir(parents=True)
    printed = f"{env.path}/lib/python3.11/site-packages/tabulate.py and {shared}/other"
    scrubbed = scrub(printed, path_roots(load_config(root).book))
    assert scrubbed == "$ENVS/tiny/lib/python3.11/site-packages/tabulate.py and $ENVS/other"
