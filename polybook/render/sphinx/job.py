"""One framework's Sphinx run for an output made per framework (the PDF's LaTeX, the epub):
in a process of its own, in the job's folder, with its warnings kept per page across runs
and located in the framework."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

from polybook.diagnostics import Diagnostic
from polybook.fsutil import write_atomic
from polybook.nb import strip_ansi
from polybook.render import warning_store
from polybook.render.sphinx.process import CRASH_LINES, REPORTED_FAILURE, sphinx_command
from polybook.render.sphinx.run import REPORTED


def job_settings(
    work: Path, builder: str, config: dict[str, Any], tool: str, out: str = "out"
) -> dict[str, Any]:
    """What the Sphinx process of a job in ``work`` is given: sources in ``src``, the
    builder's output in ``out``, beside the doctrees, the log and the diagnostics."""
    return {
        "srcdir": str(work / "src"),
        "outdir": str(work / out),
        "builder": builder,
        "doctreedir": str(work / "doctrees"),
        "diagnostics": str(work / "sphinx.diagnostics.jsonl"),
        "log": str(work / "sphinx.log"),
        "config": config,
        "tool": tool,
    }


def run_job_sphinx(work: Path, settings: dict[str, Any], failed: str) -> tuple[str, bool]:
    """Run Sphinx in a process of its own, which dies with this one: (the crash's message,
    starting with ``failed``, or :data:`REPORTED_FAILURE`, or ""; whether it read every
    page). A new tool reads every
    page: Sphinx does not know when its extensions change."""
    settings_file = work / "sphinx.json"
    try:
        previous = json.loads(settings_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    fresh = not isinstance(previous, dict) or previous.get("tool") != settings["tool"]
    write_atomic(settings_file, json.dumps(settings, indent=1))
    Path(settings["diagnostics"]).unlink(missing_ok=True)
    done = subprocess.run(
        sphinx_command(settings_file, *(["--fresh"] if fresh else [])),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode == 0:
        return "", fresh
    settings_file.unlink(missing_ok=True)  # the next run reads every page again
    if done.returncode == REPORTED:  # its located error is among the job's warnings
        return REPORTED_FAILURE, fresh
    tail = strip_ansi(done.stderr).strip().splitlines()[-CRASH_LINES:]
    return "\n".join([failed, *tail]), fresh


def job_warnings(
    work: Path, settings: dict[str, Any], fresh: bool, framework: str
) -> list[Diagnostic]:
    """The run's warnings, kept per page across runs, each located in ``framework``."""
    store_file = work / warning_store.STORE
    store = warning_store.load(store_file) or {}
    run = warning_store.read_run(Path(settings["diagnostics"]))
    store = warning_store.merge(store, run, fresh)
    warning_store.save(store_file, store)
    found = []
    for entries in store.values():
        for _, diag in entries:
            located = replace(diag, location=replace(diag.location, framework=framework))
            if located not in found:
                found.append(located)
    return found
