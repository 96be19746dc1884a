"""The Sphinx process of a site build: run when the site is ready, or started early and kept.

Starting Sphinx (importing it and the extensions, loading the pickled environment) takes about
a second, which an edit-and-rebuild pays each time. A build that will make a site starts a
:class:`WarmSphinx` on the settings of the last build before it prepares the pages, and tells
it to go once the pages are written, when the settings are still the same (the usual case: a
page changed). ``polybook serve`` keeps the process between rebuilds: Sphinx, its extensions
and its environment stay loaded, and a prose edit is a page's work. Until told, the process
writes nothing but its own log and diagnostics files, kept aside (``.next``) and put in place
after each run; stopped unused, it leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polybook.nb import strip_ansi
from polybook.parallel import usable_cpus
from polybook.render.sphinx.run import DONE, GO, LATE, NEXT, READY, REPORTED

CRASH_LINES = 20  # lines of a crashed Sphinx's stderr shown in the error
# What a run that failed says when its diagnostics say where and why (a located error).
REPORTED_FAILURE = "Sphinx failed (see its located error)"
SPHINX_JOBS = 0  # Sphinx's processes (its -j); 0: see sphinx_jobs
CLOSING = 60.0  # seconds a kept process may take to write what it deferred, and end


def sphinx_jobs() -> int:
    """Sphinx's processes: one more than the CPUs, as its main process, busy resolving the
    pages that its writers write, keeps a CPU only part of the time."""
    cpus = usable_cpus()
    return SPHINX_JOBS or (cpus + 1 if cpus > 1 else 1)


def sphinx_command(settings_file: Path, *options: str) -> list[str]:
    """The command of a Sphinx run that dies with this process (see :mod:`.run`)."""
    # -P: the working folder (a book's, often) is not put on the import path.
    command = [sys.executable, "-P", "-m", "polybook.render.sphinx.run", str(settings_file)]
    return [*command, *options, "--parent", str(os.getpid())]


def _command(settings_file: Path, *options: str) -> list[str]:
    return sphinx_command(settings_file, *options, "--jobs", str(sphinx_jobs()))


def _crash(returncode: int, stderr: str) -> str:
    if returncode == 0:
        return ""
    if returncode == REPORTED:
        return REPORTED_FAILURE
    tail = strip_ansi(stderr).strip().splitlines()[-CRASH_LINES:]
    return "\n".join(["the HTML build failed", *tail])


def _start(
    command: list[str],
    stdin: int | None = None,
    stdout: int = subprocess.DEVNULL,
    stderr: Any = None,
) -> subprocess.Popen[str]:
    """Sphinx's process, in a group of its own: ended, it ends with what it started (an
    extension's processes, which would hold its pipes). Its stderr is a pipe unless
    ``stderr`` names a file."""
    return subprocess.Popen(
        command,
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE if stderr is None else stderr,
        text=True,
        start_new_session=True,
    )


def _kill(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _close(process: subprocess.Popen[str]) -> None:
    """End a kept process by closing its input: it writes what it deferred, then ends. Its
    group is ended after it (an extension's processes), at once if it takes longer than
    :data:`CLOSING` or the wait is interrupted."""
    with contextlib.suppress(OSError, ValueError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(CLOSING)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _finish(process: subprocess.Popen[str], given: str | None = None) -> str:
    """Wait for ``process`` (given ``given`` on stdin); its stderr. Interrupted (Ctrl-C,
    SIGTERM), it is ended with its group: it no longer gets the terminal's signals."""
    try:
        return process.communicate(given)[1]
    except BaseException:
        _kill(process)
        raise


def _nothing() -> None:
    pass


def _meanwhile(process: subprocess.Popen[str], work: Callable[[], None]) -> None:
    """Do ``work`` while ``process`` runs; interrupted, the process is ended too."""
    try:
        work()
    except BaseException:
        _kill(process)
        raise


def run_sphinx(
    settings_file: Path,
    settings: dict[str, Any],
    fresh: bool,
    meanwhile: Callable[[], None] = _nothing,
) -> str:
    """Run Sphinx in a process of its own, doing ``meanwhile`` while it runs; returns the
    crash's message, or ""."""
    Path(settings["diagnostics"]).unlink(missing_ok=True)
    options = ["--fresh"] if fresh else []
    process = _start(_command(settings_file, *options))
    _meanwhile(process, meanwhile)
    stderr = _finish(process)
    return _crash(process.returncode, stderr)


# Settings that decide whether Sphinx runs, not what a process does: the digest of the files
# the pages read outside the sources (a cold build knows them only once it has read them).
RUN_ONLY = ("inputs",)


class WarmSphinx:
    """A Sphinx process started on the settings of the last build, waiting to be told; it
    builds each time it is told, while it lives."""

    def __init__(self, settings_file: Path, settings: dict[str, Any]) -> None:
        self.settings = settings  # as the file holds them
        self.ran = False  # told to build at least once
        self.errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (a crash's traceback)
        self.process: subprocess.Popen[str] | None = _start(
            _command(settings_file, "--when-told"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
        )

    @classmethod
    def start(cls, settings_file: Path, tool: str) -> WarmSphinx | None:
        """Started where the last build ran Sphinx with the same tool (a new one rereads
        every page, which an early start cannot know)."""
        try:
            last = json.loads(settings_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(last, dict) or last.get("tool") != tool:
            return None
        return cls(settings_file, last)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _files(self) -> list[tuple[Path, Path]]:
        """(kept aside, final) for its log and diagnostics files."""
        return [
            (Path(self.settings[k] + NEXT), Path(self.settings[k])) for k in ("diagnostics", "log")
        ]

    def matches(self, settings: dict[str, Any], fresh: bool) -> bool:
        """Whether this process can make the run that ``settings`` ask for: the same but
        for what decides only whether Sphinx runs (:data:`RUN_ONLY`), which it then takes
        as its own (the settings file holds them)."""
        wanted = json.loads(json.dumps(settings))  # as it reads back from the file
        keys = (set(self.settings) | set(wanted)) - set(RUN_ONLY)
        if not self.alive or fresh or any(self.settings.get(k) != wanted.get(k) for k in keys):
            return False
        self.settings = wanted
        return True

    def run(self, meanwhile: Callable[[], None] = _nothing) -> str:
        """Build (the settings were checked with :meth:`matches`), doing ``meanwhile``
        while it does; the crash's message, or "". The process stays for another run unless
        it crashed."""
        process = self.process
        if process is None or process.stdin is None or process.stdout is None:
            raise RuntimeError("the Sphinx process is not running")
        status = 1
        try:
            with contextlib.suppress(OSError, ValueError):
                process.stdin.write(GO + "\n")
                process.stdin.flush()
            meanwhile()
            with contextlib.suppress(OSError, ValueError):
                for line in process.stdout:
                    if line.startswith(DONE):
                        status = int(line.split()[1])
                        break
        except BaseException:  # interrupted: it no longer gets the terminal's signals
            self.stop(wait=False)
            raise
        self.ran = True
        for kept, final in self._files():
            if kept.is_file():
                shutil.copyfile(kept, final)
        if status:
            self.stop(wait=False)
            self.errors.seek(0)
            return _crash(
                status if status == REPORTED else process.returncode or 1, self.errors.read()
            )
        return ""

    def write_late(self) -> None:
        """Have the process write what its last build deferred (the environment, the
        search index: see :mod:`.deferred`) while it waits for the next."""
        process = self.process
        if self.ran and self.alive and process is not None and process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                process.stdin.write(LATE + "\n")
                process.stdin.flush()

    def stop(self, wait: bool = True) -> None:
        """End the process (what it wrote for its last run stays in place). One that built
        is told to end, and waited for: it writes what it left until its build was done
        (the environment, the search index: see :mod:`.deferred`); ``wait=False``, or
        one never told, is ended at once."""
        if self.process is None:
            return
        process, self.process = self.process, None
        if wait and self.ran and process.poll() is None:
            _close(process)
        else:
            _kill(process)
        for kept, _ in self._files():
            kept.unlink(missing_ok=True)
        self.errors.close()


class ReadySphinx:
    """A Sphinx process started where no build ran Sphinx before (a cold build: no settings
    to start a :class:`WarmSphinx` on): it imports Sphinx and the extensions while the pages
    are prepared, then makes the one run it is given the settings of."""

    def __init__(self) -> None:
        self.settings: dict[str, Any] = {}
        self.errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (a crash's traceback)
        self.process: subprocess.Popen[str] | None = _start(
            sphinx_command(Path(READY), "--jobs", str(sphinx_jobs())),
            stdin=subprocess.PIPE,
            stderr=self.errors,
        )

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def run(
        self,
        settings_file: Path,
        settings: dict[str, Any],
        fresh: bool,
        meanwhile: Callable[[], None] = _nothing,
    ) -> str:
        """Run on ``settings`` (written in ``settings_file``), doing ``meanwhile`` while it
        runs; the crash's message, or ""."""
        process = self.process
        if process is None or process.stdin is None or not self.alive:
            return run_sphinx(settings_file, settings, fresh, meanwhile)
        Path(settings["diagnostics"]).unlink(missing_ok=True)
        self.settings = settings
        try:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.write(f"{settings_file} {int(fresh)}\n")
                process.stdin.close()
            meanwhile()
            process.wait()
        except BaseException:
            self.stop()
            raise
        self.errors.seek(0)
        crash = _crash(process.returncode, self.errors.read())
        self.process = None
        self.errors.close()
        return crash

    def stop(self) -> None:
        """End the process unused."""
        if self.process is None:
            return
        process, self.process = self.process, None
        _kill(process)
        self.errors.close()


EarlySphinx = WarmSphinx | ReadySphinx
