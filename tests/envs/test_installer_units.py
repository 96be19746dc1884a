"""The installer's parts, each quick: how a command is run and its failure said, the reason
pip installs said once, where uv is found, the venv a new environment starts from, and
``python -m polybook.environments.installer``. Real processes throughout (pip, uv, a venv);
a stand-in ``uv`` or ``python`` only where the real one cannot fail as the test needs."""

from __future__ import annotations

import ensurepip
import importlib
import logging
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from polybook.diagnostics import Location, PolybookError
from polybook.environments import installer

from ..books import made_wheel

PYTHON = Path(sys.executable)
WHERE = Location("requirements/x.txt", 3)


def _script(path: Path, body: str, executable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755 if executable else 0o644)
    return path


def _said(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "polybook"]


def test_a_command_is_logged_and_its_failure_says_its_last_fifteen_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="polybook")
    out = tmp_path / "seen"
    code = "import os, sys; open(sys.argv[1], 'w').write(os.environ['SEEN'])"
    installer.run([str(PYTHON), "-c", code, str(out)], WHERE, "x", {"SEEN": "given"})
    assert out.read_text() == "given"  # run with the environment given
    assert _said(caplog) == [(logging.INFO, f"{PYTHON} -c {code} {out}")]
    noisy = "import sys\nfor i in range(20): print('line', i)\nsys.exit(1)"
    with pytest.raises(PolybookError) as raised:
        installer.run([str(PYTHON), "-c", noisy], WHERE, "it failed")
    tail = "\n".join(f"line {i}" for i in range(5, 20))
    assert str(raised.value) == f"requirements/x.txt:3: it failed:\n{tail} [polybook.env]"


def test_a_command_that_cannot_start_is_a_located_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-installer"
    with pytest.raises(PolybookError) as raised:
        installer.run([str(missing), "install"], WHERE, "it failed")
    said = str(raised.value)
    assert said.startswith("requirements/x.txt:3: it failed:\n[Errno 2] No such file")
    assert said.endswith(f"{str(missing)!r} [polybook.env]")


def test_why_pip_installs_is_said_once_a_warning_unless_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="polybook")
    why, asked = f"reason {uuid.uuid4()}", f"asked {uuid.uuid4()}"
    installer._say_once(why)
    installer._say_once(why)
    installer._say_once(asked, asked=True)
    assert _said(caplog) == [
        (logging.WARNING, f"installing with pip: {why}"),
        (logging.INFO, f"installing with pip: {asked}"),
    ]


def test_uv_installs_unless_pip_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(installer.INSTALLER_VARIABLE, raising=False)
    assert installer.current().name == "uv", installer.current().why
    for value in ("", "  ", " Uv\n"):
        monkeypatch.setenv(installer.INSTALLER_VARIABLE, value)
        assert installer.current().name == "uv", value


def test_an_installer_describes_itself() -> None:
    uv = installer.Installer(Path("/opt/uv"), "0.9.1")
    assert uv.describe() == "uv 0.9.1 (/opt/uv), given the sources pip is configured with"
    assert installer.Installer(None, why="asked").describe() == "pip: asked"


def test_uv_is_found_beside_this_python_if_it_runs_else_as_the_uv_package_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package_uv = Path(str(importlib.import_module("uv").find_uv_bin()))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    beside = _script(tmp_path / "bin" / "uv", "exit 0")
    assert installer.find_uv() == beside
    beside.chmod(0o644)  # there but not runnable
    assert installer.find_uv() == package_uv
    beside.unlink()
    assert installer.find_uv() == package_uv
    monkeypatch.setitem(sys.modules, "uv", None)  # no uv package either
    assert installer.find_uv() is None


def test_pip_is_bundled_for_new_venvs() -> None:
    names = [wheel.name for wheel in installer.bundled_wheels()]
    assert any(name.startswith("pip-") and name.endswith(".whl") for name in names)


def _uv() -> installer.Installer:
    uv = installer.find_uv()
    assert uv is not None
    return installer.Installer(uv, "found")


def test_uv_seeds_a_new_venv_with_pip_uncompiled_and_keeps_what_is_there(
    tmp_path: Path,
) -> None:
    path = tmp_path / "venv"
    installer.make_venv(path, WHERE, "no venv", using=_uv())
    (info,) = path.glob("lib/python*/site-packages/pip-*.dist-info")
    assert (info / "INSTALLER").read_text().strip() == "uv"  # seeded by uv, not ensurepip
    assert not list(info.parent.rglob("*.pyc"))  # compiled as pip first runs, not here
    kept = path / "kept.txt"
    kept.write_text("mine")
    installer.make_venv(path, WHERE, "no venv", using=_uv())
    assert kept.read_text() == "mine"  # not cleared unless asked
    installer.make_venv(path, WHERE, "no venv", clear=True, using=_uv())
    assert not kept.exists()


def test_without_bundled_wheels_a_new_venv_gets_pip_from_ensurepip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distribution's Python that keeps ensurepip's wheels elsewhere: uv has nothing to
    seed with, and the venv's own ensurepip installs pip."""
    monkeypatch.setattr(ensurepip, "__file__", str(tmp_path / "ensurepip" / "__init__.py"))
    assert installer.bundled_wheels() == []
    path = tmp_path / "venv"
    installer.make_venv(path, WHERE, "no venv", using=_uv())
    (info,) = path.glob("lib/python*/site-packages/pip-*.dist-info")
    assert (info / "INSTALLER").read_text().strip() == "pip"


def test_a_venv_that_cannot_be_made_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(PolybookError) as raised:
        installer.make_venv(tmp_path / "file" / "venv", WHERE, "no venv", using=_uv())
    said = str(raised.value)
    assert said.startswith("requirements/x.txt:3: no venv: [Errno 20] Not a directory")
    assert said.endswith(" [polybook.env]")
    failing = _script(tmp_path / "uv", "echo seeding broke >&2\nexit 1")
    with pytest.raises(PolybookError) as raised:
        installer.make_venv(
            tmp_path / "venv", WHERE, "no venv", using=installer.Installer(failing, "0")
        )
    assert str(raised.value) == "requirements/x.txt:3: no venv:\nseeding broke [polybook.env]"


def test_pip_installs_saying_why_as_the_installer_says(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="polybook")
    wheel = made_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": ""})
    args = ["--dry-run", "--no-index", str(wheel)]
    for asked, level in ((True, logging.INFO), (False, logging.WARNING)):
        why = f"reason {uuid.uuid4()}"
        using = installer.Installer(None, why=why, asked=asked)
        assert installer.install(PYTHON, args, WHERE, "x", using=using) == "pip"
        assert _said(caplog)[-2] == (level, f"installing with pip: {why}")


def test_pip_installs_where_uv_cannot_follow_pips_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Settings uv is not given, or a pip that cannot say its settings: pip installs, the
    reason said (the uv named is never run)."""
    caplog.set_level(logging.INFO, logger="polybook")
    unused_uv = installer.Installer(tmp_path / "uv-never-run", "0")
    monkeypatch.setenv("PIP_NO_BINARY", "demo")
    monkeypatch.setenv("PIP_ONLY_BINARY", "other")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    wheel = made_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": ""})
    args = ["--dry-run", "--no-index", str(wheel)]
    assert installer.install(PYTHON, args, WHERE, "x", using=unused_uv) == "pip"
    why = "pip's configuration sets no-binary, only-binary, which polybook does not pass to uv"
    assert (logging.WARNING, f"installing with pip: {why}") in _said(caplog)
    broken = _script(tmp_path / "bin" / "python", "echo no pip here >&2\nexit 1")
    with pytest.raises(PolybookError) as raised:
        installer.install(broken, ["demo"], WHERE, "not installed", using=unused_uv)
    assert str(raised.value) == "requirements/x.txt:3: not installed:\nno pip here [polybook.env]"
    why = f"pip's configuration could not be read ({broken} -m pip config list failed: no pip here)"
    assert (logging.WARNING, f"installing with pip: {why}") in _said(caplog)


def test_the_module_installs_its_arguments_into_this_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, "pip")
    wheel = made_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": ""})
    assert installer.main(["--dry-run", "--no-index", str(wheel)]) == 0
    monkeypatch.setattr(sys, "argv", ["installer", "--no-index", "no-such-package-x"])
    assert installer.main() == 1
    err = capsys.readouterr().err
    assert err.startswith("pip install --no-index no-such-package-x: failed:\n")
    assert "No matching distribution found for no-such-package-x [polybook.env]\n" in err


def _main(args: list[str], environ: dict[str, str], first: str = "") -> tuple[int, str]:
    """``main`` in a Python of its own (imported by its name, not run as ``__main__``, so
    that mutation testing reaches it), after ``first``: its exit status and stderr."""
    code = f"import sys; {first}from polybook.environments.installer import main; "
    code += "sys.exit(main())"
    done = subprocess.run(
        [str(PYTHON), "-c", code, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **environ},
        check=False,
    )
    return done.returncode, done.stderr


def test_the_module_says_why_pip_installs_as_polybook_and_no_more_here_or_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warnings, each as polybook's; not what is said at INFO (the command, pip as asked),
    even where the root logger was set lower before; in this process as in its own."""
    wheel = made_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": ""})
    args = ["--dry-run", "--no-index", str(wheel)]
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, "pip")
    assert installer.main(args) == 0
    environ = {installer.INSTALLER_VARIABLE: "uv", "PIP_NO_BINARY": "demo"}
    status, err = _main(args, environ)
    assert status == 0, err
    assert err.startswith("polybook: installing with pip: pip's configuration sets no-binary")
    lowered = "import logging; logging.getLogger().setLevel(logging.DEBUG); "
    assert _main(args, {installer.INSTALLER_VARIABLE: "pip"}, lowered) == (0, "")
