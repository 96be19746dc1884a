"""``make bench``'s comparison with d2lbook: a cold ``build eval`` of d2l-en's chapters that
need no download, PyTorch on this host's CPU, by polybook and by d2lbook 1.0.3 in the *same*
Python, on copies of the book.

Needs what the project does not ship: a d2l-en checkout (``D2L_EN``) and a Python holding
d2lbook 1.0.3, the framework and d2l-en's packages (``D2LBOOK_PYTHON``); without them the
section says so and measures nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHAPTERS = ("chapter_preliminaries", "chapter_linear-regression", "chapter_builders-guide")
APPENDIX = "chapter_appendix-tools-for-deep-learning"  # utils.md completes the library
FAKE_SMI = "#!/bin/sh\necho 'GPU 0'\necho 'GPU 1'\n"  # d2lbook stops without nvidia-smi


def _pages(book: Path) -> list[str]:
    pages = ["index.md", f"{APPENDIX}/index.md", f"{APPENDIX}/utils.md"]
    for chapter in CHAPTERS:
        pages += sorted(p.relative_to(book).as_posix() for p in (book / chapter).glob("*.md"))
    return pages


def _copy(book: Path, target: Path, python: str | None) -> Path:
    shutil.copytree(book, target, ignore=shutil.ignore_patterns("_build", ".git"))
    config = target / "config.ini"
    text = re.sub(
        r"(?m)^notebooks = .*$", "notebooks = " + " ".join(_pages(book)), config.read_text()
    )
    if python:
        text += f"\n[env-pytorch]\npython = {python}\n"
    config.write_text(text)
    return target


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(command, check=False, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def d2lbook_figures() -> list[tuple[str, str, str]]:
    """Rows for ``show``: each tool's cold eval and the ratio, or why nothing was measured."""
    book, python = os.environ.get("D2L_EN", ""), os.environ.get("D2LBOOK_PYTHON", "")
    if not (book and python and (Path(book) / "config.ini").is_file()):
        why = "set D2L_EN (a d2l-en checkout) and D2LBOOK_PYTHON (d2lbook 1.0.3, torch)"
        return [("d2l-en, PyTorch: not measured", why, "")]
    with tempfile.TemporaryDirectory(prefix="polybook-d2lbook-") as tmp:
        folder = Path(tmp)
        (folder / "bin").mkdir()
        smi = folder / "bin" / "nvidia-smi"
        smi.write_text(FAKE_SMI)
        smi.chmod(0o755)
        ours = _copy(Path(book), folder / "polybook", python)
        theirs = _copy(Path(book), folder / "d2lbook", None)
        env = {**os.environ, "PYTHONPATH": str(theirs)}
        env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        d2lbook = str(Path(python).parent / "d2lbook")
        their_time, _, their_log = _timed(
            [d2lbook, "build", "eval", "--tab", "pytorch"], theirs, env
        )
        command = [sys.executable, "-m", "polybook", "--root", str(ours), "build", "eval"]
        our_time, _, our_log = _timed([*command, "--tab", "pytorch"], ours, dict(os.environ))
    failed_theirs = len(
        set(re.findall(r'Task "Evaluating \./(\S+)"[^\n]*exited with error', their_log))
    )
    errors = our_log.split("error(s):")[-1] if "error(s):" in our_log else ""
    failed_ours = len(set(re.findall(r"^\s*(\S+\.md):\d+ \[pytorch\] cell \d+: ", errors, re.M)))
    return [
        (
            "d2l-en (3 chapters), PyTorch: d2lbook cold eval",
            f"{their_time:.1f} s, {failed_theirs} pages failed",
            "",
        ),
        (
            "d2l-en (3 chapters), PyTorch: polybook cold eval",
            f"{our_time:.1f} s, {failed_ours} pages failed",
            "",
        ),
        ("d2lbook / polybook", f"{their_time / our_time:.1f}x", ">= 3"),
    ]
