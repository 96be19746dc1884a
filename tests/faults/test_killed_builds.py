"""Killed builds: the processes a build starts die with it, so that nothing writes into
``_build/`` after ``kill -9`` of the build and the next build never runs beside a leftover.
Real processes and real signals: a build killed while Sphinx writes its pages or while
xelatex typesets, the guard of TeX's programs, and the lifeline itself on a parent, its
child and the child's fork."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import pages_book
from ..processes import alive, cpu_seconds, descendants, program, until

CONFIG = (
    "[project]\nname = k\ntitle = K\n[build]\ntabs = pytorch\neval_notebook = false\n"
    "sphinx_extensions = pb_hold\n"
)
# A Sphinx extension of the test: when Sphinx writes the page named in $PB_HOLD_PAGE (in
# its main process or a forked writer), it leaves a mark and holds the writing a while.
HOLDING = """
import os
import time


def hold(app, pagename, templatename, context, doctree):
    if pagename == os.environ.get("PB_HOLD_PAGE"):
        with open(os.environ["PB_HOLD_MARK"], "w") as mark:
            mark.write(str(os.getpid()))
        time.sleep(float(os.environ.get("PB_HOLD_SECONDS", "6")))


def setup(app):
    app.connect("html-page-context", hold)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
"""


def written(folder: Path) -> dict[str, int]:
    """Each file of ``folder`` and when it was last written."""
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_kill_9_during_the_sphinx_stage_leaves_nothing_writing_and_the_next_build_runs_alone(
    tmp_path: Path,
) -> None:
    pages = {f"p{n:02d}": f"Words of page {n}.\n" for n in range(24)}
    root = pages_book(tmp_path / "book", pages, CONFIG, folder="c")
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "pb_hold.py").write_text(HOLDING)
    mark = tmp_path / "holding"
    environ = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "ext"),
        "PB_HOLD_PAGE": "c/p12",
        "PB_HOLD_MARK": str(mark),
    }
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), "build", "html"]
    build = subprocess.Popen(command, env=environ, stderr=subprocess.PIPE, text=True)
    assert until(mark.is_file, 120), "Sphinx never reached the page"
    helpers = descendants(build.pid)
    writer = int(mark.read_text())
    assert writer in helpers  # Sphinx (or its forked writer) is the build's
    build.kill()
    build.communicate(timeout=30)
    assert until(lambda: not any(alive(pid) for pid in helpers), 5), [
        pid for pid in helpers if alive(pid)
    ]
    site = root / "_build" / "html"
    before = written(site)
    time.sleep(7)  # longer than the page is held: a leftover writer would write by now
    assert written(site) == before
    # The held page was never written (pages after it may be: writers run side by side).
    assert not (site / "c" / "p12.html").exists()
    # The next build finds the lock free and builds the whole site.
    os.environ["PYTHONPATH"] = environ["PYTHONPATH"]  # the extension, held no longer
    try:
        assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    finally:
        os.environ.pop("PYTHONPATH")
    assert all((site / "c" / f"{name}.html").is_file() for name in pages)


# The lifeline on real processes: a parent and two children, one armed, each with a fork.
CHILD = """
import os, sys, time
from polybook.lifeline import die_with_parent, forks_die_with_parent
if sys.argv[1] == "armed":
    die_with_parent(int(sys.argv[2]))
    forks_die_with_parent()
if os.fork() == 0:
    time.sleep(60)
    os._exit(0)
os.write(1, f"{sys.argv[1]} {os.getpid()}\\n".encode())  # one write: lines never mix
time.sleep(60)
"""
FAMILY = f"""
import os, subprocess, sys, time
for kind in ("armed", "unarmed"):
    subprocess.Popen([sys.executable, "-c", {CHILD!r}, kind, str(os.getpid())])
time.sleep(60)
"""


def test_a_child_and_its_forks_die_with_their_parent_and_only_those_armed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", FAMILY], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    family: set[int] = set()
    try:
        kinds = dict(parent.stdout.readline().split() for _ in range(2))
        assert until(lambda: len(descendants(parent.pid)) == 4, 30)  # two children, two forks
        family = descendants(parent.pid)
        armed = int(kinds["armed"])
        armed_family = {armed, *descendants(armed)}
        assert len(armed_family) == 2
        parent.kill()
        parent.wait(timeout=10)
        assert until(lambda: not any(alive(pid) for pid in armed_family), 5)
        time.sleep(0.5)
        unarmed = family - armed_family  # the control: they outlive the parent
        assert len(unarmed) == 2 and all(alive(pid) for pid in unarmed)
    finally:
        parent.kill()
        parent.wait(timeout=10)
        parent.stdout.close()
        for pid in family:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


# A page whose LaTeX never ends: xelatex expands a macro into itself, for ever.
SPINNING = "Words.\n\n```eval_rst\n.. raw:: latex\n\n   \\def\\spin{\\spin}\\spin\n```\n"


@pytest.mark.slow
def test_kill_9_while_latex_runs_ends_latexmk_and_xelatex_and_leaves_no_pdf(
    tmp_path: Path,
) -> None:
    config = "[project]\nname = k\ntitle = K\nrelease = 1.0\n[build]\ntabs = pytorch\n"
    root = pages_book(tmp_path / "book", {"spin": SPINNING}, config + "eval_notebook = false\n")
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), "build", "pdf"]
    build = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    helpers: set[int] = set()

    def spinning() -> bool:  # past its output (which a dead reader would end), in the loop
        helpers.update(descendants(build.pid))  # the guard, latexmk and xelatex among them
        return any(program(pid) == "xelatex" and cpu_seconds(pid) > 2 for pid in helpers)

    try:
        assert until(spinning, 180), "xelatex never ran"
        assert "latexmk" in {program(pid) for pid in helpers}
        build.kill()
        build.communicate(timeout=30)
        assert until(lambda: not any(alive(pid) for pid in helpers), 5), [
            (pid, program(pid)) for pid in helpers if alive(pid)
        ]
        assert not list((root / "_build").glob("pdf/*.pdf"))  # nothing half made in its place
    finally:
        build.kill()
        for pid in helpers:  # a spinning xelatex left over by a failure of this test
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_guard_passes_the_programs_exit_status_on() -> None:
    guard = [sys.executable, "-m", "polybook.lifeline"]
    assert subprocess.run([*guard, "sh", "-c", "exit 3"], check=False).returncode == 3
    missing = subprocess.run(
        [*guard, "polybook-no-such-program"], capture_output=True, text=True, check=False
    )
    assert missing.returncode == 127 and "polybook-no-such-program" in missing.stderr
