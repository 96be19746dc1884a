"""Packages installed into the venvs polybook makes (a framework's, a side environment's, the
lab's, the tool's own from the Makefile): by uv where it runs, given the sources pip is
configured with (:mod:`.sources`), so that the same distributions are installed either way;
else by pip, the reason said once. ``$POLYBOOK_INSTALLER=pip`` asks for pip.

Only the standard library here: the Makefile runs ``python -m
polybook.environments.installer`` to install the tool's own packages with it.
"""

from __future__ import annotations

import ensurepip
import functools
import importlib
import logging
import os
import subprocess
import sys
import threading
import venv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from polybook.diagnostics import Location, PolybookError
from polybook.environments import sources

logger = logging.getLogger("polybook")

INSTALLER_VARIABLE = "POLYBOOK_INSTALLER"  # "pip": pip installs even where uv runs
CHOICES = ("uv", "pip")


@dataclass(frozen=True)
class Installer:
    """What installs packages: uv (its binary and version), or pip and why."""

    uv: Path | None
    version: str = ""
    why: str = ""  # why pip installs ("" with uv)
    asked: bool = False  # pip, as $POLYBOOK_INSTALLER asks

    @property
    def name(self) -> str:
        return "uv" if self.uv is not None else "pip"

    def describe(self) -> str:
        if self.uv is not None:
            return f"uv {self.version} ({self.uv}), given the sources pip is configured with"
        return f"pip: {self.why}"


def find_uv() -> Path | None:
    """The uv binary: beside this Python (the tool's venv), else the ``uv`` package's."""
    beside = Path(sys.executable).parent / "uv"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    try:
        found = importlib.import_module("uv").find_uv_bin()
    except (ImportError, AttributeError, OSError):
        return None
    return Path(str(found))


@functools.cache
def _installer(wanted: str) -> Installer:
    if wanted not in CHOICES:
        message = f"${INSTALLER_VARIABLE} is {wanted!r}: it names the installer, uv or pip"
        raise PolybookError(Location(f"${INSTALLER_VARIABLE}"), message, "env")
    if wanted == "pip":
        return Installer(None, why=f"${INSTALLER_VARIABLE} is pip", asked=True)
    uv = find_uv()
    if uv is None:
        return Installer(None, why="uv is not installed beside polybook (pip install uv)")
    try:
        done = subprocess.run(
            [str(uv), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Installer(None, why=f"{uv} does not run ({exc})")
    words = done.stdout.split()
    if done.returncode != 0 or len(words) < 2:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return Installer(None, why=f"`{uv} --version` failed ({last})")
    return Installer(uv, words[1])


def current() -> Installer:
    """The installer of this process (found once)."""
    return _installer(os.environ.get(INSTALLER_VARIABLE, "uv").strip().lower() or "uv")


_said: set[str] = set()
_said_lock = threading.Lock()


def _say_once(why: str, asked: bool = False) -> None:
    with _said_lock:
        if why in _said:
            return
        _said.add(why)
    logger.log(logging.INFO if asked else logging.WARNING, "installing with pip: %s", why)


def run(
    command: Sequence[str], where: Location, failed: str, env: Mapping[str, str] | None = None
) -> None:
    """Run an installer's ``command``; a located error naming ``failed`` with its last lines."""
    logger.info("%s", " ".join(command))
    try:
        done = subprocess.run(
            list(command), capture_output=True, text=True, check=False, env=env and dict(env)
        )
    except OSError as exc:
        done = subprocess.CompletedProcess(list(command), 1, "", str(exc))
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise PolybookError(where, f"{failed}:\n{tail}", "env")


def _uv_install(uv: Path, python: Path, compile_all: bool) -> list[str]:
    command = [str(uv), "pip", "install", "--python", str(python), "--no-config"]
    return [*command, "--compile-bytecode"] if compile_all else command


def bundled_wheels() -> list[Path]:
    """The wheels ``ensurepip`` installs into a new venv (none where a distribution's Python
    keeps them elsewhere)."""
    return sorted((Path(ensurepip.__file__).parent / "_bundled").glob("*.whl"))


def make_venv(
    path: Path, where: Location, failed: str, clear: bool = False, using: Installer | None = None
) -> None:
    """A venv at ``path`` with pip (and what else ``ensurepip`` installs), as ``python -m
    venv`` makes it; with uv, from ensurepip's own wheels in a fraction of the time (what
    pip imports is compiled as it first runs: :func:`.sources.read`)."""
    installer = using or current()
    wheels = bundled_wheels() if installer.uv is not None else []
    try:
        # Its interpreter a link, as ``python -m venv`` makes it off Windows: a copy is an
        # executable written while other environments' threads fork, and a fork holding it
        # open made its first run fail ("Text file busy").
        links = os.name != "nt"
        venv.EnvBuilder(with_pip=not wheels, clear=clear, symlinks=links).create(path)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise PolybookError(where, f"{failed}: {exc}", "env") from exc
    if installer.uv is not None and wheels:
        command = [*_uv_install(installer.uv, path / "bin" / "python", False), "--no-index"]
        run([*command, *map(str, wheels)], where, failed, sources.uv_environ({}, os.environ))


def install(
    python: Path,
    args: Sequence[str],
    where: Location,
    failed: str,
    using: Installer | None = None,
    compile_all: bool = True,
) -> str:
    """Install into the environment of ``python`` what ``args`` name (as ``pip install``
    takes them: ``--requirement=FILE``, ``--no-deps``, ``--editable=DIR``); the name of the
    installer that did. uv is given the sources the environment's pip is configured with;
    where it could not follow them, pip installs. pip compiles every module it installs;
    uv too, unless ``compile_all`` is false (then the caller compiles what it needs)."""
    installer = using or current()
    if installer.uv is None:
        _say_once(installer.why, installer.asked)
    else:
        try:
            settings = sources.read(python)
            unfollowed = ", ".join(sources.unfollowed(settings))
            why = ""
            if unfollowed:
                why = f"pip's configuration sets {unfollowed}, which polybook does not pass to uv"
        except OSError as exc:
            settings, why = {}, f"pip's configuration could not be read ({exc})"
        if not why:
            options = sources.uv_options(settings)
            command = [*_uv_install(installer.uv, python, compile_all), *options, *args]
            run(command, where, failed, sources.uv_environ(settings, os.environ))
            return "uv"
        _say_once(why)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "-q", "install"]
    run([*pip, *args], where, failed)
    return "pip"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m polybook.environments.installer ARGS``: install ``ARGS`` (as ``pip
    install`` takes them) into this Python's environment."""
    logging.basicConfig(format="polybook: %(message)s", level=logging.WARNING)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        install(Path(sys.executable), args, Location("pip install " + " ".join(args)), "failed")
    except PolybookError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
