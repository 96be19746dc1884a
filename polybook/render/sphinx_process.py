"""The Sphinx process of a site build, run when the site is ready or started early.

Starting Sphinx (importing it and the extensions, loading the pickled environment) takes about
a second, which an edit-and-rebuild pays each time. A build that will make a site starts the
process before it prepares the pages, on the settings of the last build, and tells it to go
once the pages are written, when the settings are still the same (the usual case: a page
changed). Until told, the process writes nothing but its own log and diagnostics files, kept
aside (``.next``) and put in place when its run is over; told to stop, or never told, it
leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from polybook.nb import strip_ansi
from polybook.parallel import usable_cpus
from polybook.render.sphinx_run import GO, NEXT

CRASH_LINES = 20  # lines of a crashed Sphinx's stderr shown in the error
SPHINX_JOBS = 0  # Sphinx's processes (its -j); 0: see sphinx_jobs


def sphinx_jobs() -> int:
    """Sphinx's processes: one more than the CPUs, as its main process, busy resolving the
    pages that its writers write, keeps a CPU only part of the time."""
    cpus = usable_cpus()
    return SPHINX_JOBS or (cpus + 1 if cpus > 1 else 1)


def sphinx_command(settings_file: Path, *options: str) -> list[str]:
    """The command of a Sphinx run that dies with this process (see ``sphinx_run``)."""
    command = [sys.executable, "-m", "polybook.render.sphinx_run", str(settings_file)]
    return [*command, *options, "--parent", str(os.getpid())]


def _command(settings_file: Path, *options: str) -> list[str]:
    return sphinx_command(settings_file, *options, "--jobs", str(sphinx_jobs()))


def _crash(returncode: int, stderr: str) -> str:
    if returncode == 0:
        return ""
    tail = strip_ansi(stderr).strip().splitlines()[-CRASH_LINES:]
    return "\n".join(["the HTML build failed", *tail])


def run_sphinx(settings_file: Path, settings: dict[str, Any], fresh: bool) -> str:
    """Run Sphinx in a process of its own; returns the crash's message, or ""."""
    Path(settings["diagnostics"]).unlink(missing_ok=True)
    options = ["--fresh"] if fresh else []
    done = subprocess.run(
        _command(settings_file, *options), capture_output=True, text=True, check=False
    )
    return _crash(done.returncode, done.stderr)


class EarlySphinx:
    """A Sphinx process started on the settings of the last build, waiting to be told."""

    def __init__(self, settings_file: Path, settings: dict[str, Any]) -> None:
        self.settings = settings  # as the file holds them
        self.process: subprocess.Popen[str] | None = subprocess.Popen(
            _command(settings_file, "--when-told"),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    @classmethod
    def start(cls, settings_file: Path, tool: str) -> EarlySphinx | None:
        """Started where the last build ran Sphinx with the same tool (a new one rereads
        every page, which an early start cannot know)."""
        try:
            last = json.loads(settings_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(last, dict) or last.get("tool") != tool:
            return None
        return cls(settings_file, last)

    def _files(self) -> list[tuple[Path, Path]]:
        """(kept aside, final) for its log and diagnostics files."""
        return [
            (Path(self.settings[k] + NEXT), Path(self.settings[k])) for k in ("diagnostics", "log")
        ]

    def matches(self, settings: dict[str, Any], fresh: bool) -> bool:
        """Whether this process can make the run that ``settings`` ask for."""
        wanted = json.loads(json.dumps(settings))  # as it reads back from the file
        return self.process is not None and not fresh and self.settings == wanted

    def run(self) -> str:
        """Build (the settings were checked with :meth:`matches`); the crash's message, or
        ""."""
        if self.process is None:
            raise RuntimeError("the early Sphinx process was used already")
        process, self.process = self.process, None
        _, stderr = process.communicate(GO + "\n")
        for kept, final in self._files():
            if kept.is_file():
                kept.replace(final)
        return _crash(process.returncode, stderr)

    def stop(self) -> None:
        """End the process unused (nothing of it is kept); nothing when it ran."""
        if self.process is None:
            return
        process, self.process = self.process, None
        process.kill()
        process.communicate()
        for kept, _ in self._files():
            kept.unlink(missing_ok=True)
