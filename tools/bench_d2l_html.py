"""``make bench``'s ``d2l`` section: the build's speed against d2lbook 1.0.3 and its own
targets, each side measured in alternating pairs (polybook, d2lbook, polybook, d2lbook…) so
that a shared machine's load drifts over both: medians and their ratio, with each side's
min–max.

- d2l-en's site, nothing executed (``eval_notebook = False``), PyTorch: polybook against
  d2lbook (target >= 6x); and polybook's four tabs, cold and after ``make clean`` (its
  caches kept), <= 30 s;
- the shipped book's cold ``build eval``, PyTorch: polybook against d2lbook (target >= 9x);
- the executed shipped book's site, its no-op rebuild, and ``polybook serve``: a prose edit
  and a formula edit to the served page, seen in the browser (median of 5);
- ``polybook serve`` on d2l-en whole (eval off, PyTorch) from a warm ``_build/``: its first
  page served, and five prose edits of one page seen in the browser (median and worst).

The comparisons need what the project does not ship: a d2l-en checkout (``D2L_EN``) and a
Python with d2lbook 1.0.3 and PyTorch (``D2LBOOK_PYTHON``); without them they say so.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tools.bench_runs import build, serve_edits, serve_latency

REPO = Path(__file__).resolve().parent.parent
PAIRS = int(os.environ.get("BENCH_PAIRS", "2"))  # alternating pairs per comparison
FAKE_SMI = "#!/bin/sh\necho 'GPU 0'\necho 'GPU 1'\n"  # d2lbook needs one; use-gpu asks 2
Row = tuple[str, str, str]
TITLE = "d2l: polybook against d2lbook 1.0.3 and its targets (alternating pairs)"


def _d2l_copy(book: Path, target: Path) -> Path:
    """A copy of d2l-en with nothing executed (``eval_notebook = False``)."""
    shutil.copytree(book, target, ignore=shutil.ignore_patterns("_build", ".git"))
    config = target / "config.ini"
    config.write_text(config.read_text().replace("eval_notebook = True", "eval_notebook = False"))
    return target


class Failed(Exception):
    """A run of the comparison failed: the section says so and goes on."""


def _timed(
    command: list[str], cwd: Path, env: dict[str, str], failing: list[str] | None = None
) -> float:
    """Seconds ``command`` ran. A failed run raises :class:`Failed`, unless ``failing`` is
    given: d2lbook's eval fails where one of its notebooks does, having run them all; the
    notebooks that failed are added to ``failing``."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        output = done.stdout + done.stderr
        failed = re.findall(r'Task "Evaluating \./(\S+)"[^\n]*exited with error', output)
        if failing is None or not failed:
            raise Failed(f"{' '.join(command[-4:])} failed: {done.stderr.strip()[-300:]}")
        failing += sorted(set(failed))
    return time.perf_counter() - started


def _polybook(root: Path, target: str, *options: str) -> float:
    return build(root, target, *options).wall


def _spread(walls: list[float]) -> str:
    return f"median {statistics.median(walls):.1f} s ({min(walls):.1f}–{max(walls):.1f})"


def pairs(ours: Callable[[int], float], theirs: Callable[[int], float]) -> list[Row]:
    """Each side run ``PAIRS`` times, alternating; rows of both and their ratio."""
    mine: list[float] = []
    other: list[float] = []
    for n in range(PAIRS):
        mine.append(ours(n))
        other.append(theirs(n))
    ratio = statistics.median(other) / statistics.median(mine)
    return [
        ("polybook", _spread(mine), ""),
        ("d2lbook 1.0.3", _spread(other), ""),
        ("d2lbook / polybook (medians)", f"{ratio:.2f}x", ""),
    ]


def _d2lbook_env(folder: Path, book: Path, python: str) -> dict[str, str]:
    """d2lbook's environment: its Python's scripts first (``sphinx-build``, as in its
    activated venv), a fake ``nvidia-smi``, the book's ``d2l`` package importable."""
    (folder / "bin").mkdir(exist_ok=True)
    smi = folder / "bin" / "nvidia-smi"
    smi.write_text(FAKE_SMI)
    smi.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(book)}
    scripts = os.pathsep.join([str(Path(python).parent), str(folder / "bin")])
    env["PATH"] = f"{scripts}{os.pathsep}{env.get('PATH', '')}"
    return env


def d2l_html(book: Path, python: str, folder: Path) -> list[Row]:
    """d2l-en's site, nothing executed, PyTorch; then all four tabs."""
    d2lbook = str(Path(python).parent / "d2lbook")

    def ours(n: int) -> float:
        return _polybook(_d2l_copy(book, folder / f"ours{n}"), "html", "--tab", "pytorch")

    def theirs(n: int) -> float:
        root = _d2l_copy(book, folder / f"theirs{n}")
        config = root / "config.ini"  # d2lbook's html downloads the PDF's LaTeX style for
        text = config.read_text()  # `style = cambridge`: offline, it is left out
        config.write_text(re.sub(r"(?m)^style = cambridge$", "style =", text))
        command = [d2lbook, "build", "html", "--tab", "pytorch"]
        return _timed(command, root, _d2lbook_env(folder, root, python))

    rows = pairs(ours, theirs)
    rows[-1] = (*rows[-1][:2], ">= 6")
    every = _d2l_copy(book, folder / "all")
    cold = _polybook(every, "html", "--tab", "all")
    for made in (every / "_build").iterdir():  # make clean: its caches stay
        if made.name != "cache":
            shutil.rmtree(made) if made.is_dir() else made.unlink()
    clean = _polybook(every, "html", "--tab", "all")
    rows += [
        ("polybook, all four tabs, cold", f"{cold:.1f} s", "<= 20 s"),
        ("polybook, all four tabs, after make clean", f"{clean:.1f} s", "<= 30 s"),
    ]
    return [(f"d2l-en html, eval off: {name}", value, target) for name, value, target in rows]


def shipped_eval(python: str, folder: Path) -> list[Row]:
    """The shipped book's cold ``build eval``, PyTorch, by polybook and by d2lbook."""
    from tools.bench_common import copy_book

    d2lbook = str(Path(python).parent / "d2lbook")

    def ours(n: int) -> float:
        root = folder / f"shipped-ours{n}"
        copy_book(REPO, root)
        return _polybook(root, "eval", "--tab", "pytorch")

    failing: list[str] = []

    def theirs(n: int) -> float:
        root = folder / f"shipped-theirs{n}"
        copy_book(REPO, root)
        command = [d2lbook, "build", "eval", "--tab", "pytorch"]
        return _timed(command, root, _d2lbook_env(folder, root, python), failing)

    rows = pairs(ours, theirs)
    rows[-1] = (*rows[-1][:2], ">= 9")
    if failing:  # polybook's own syntax (`else:` after `tab.selected`) d2lbook cannot run
        rows.append(("d2lbook: notebooks failing", ", ".join(sorted(set(failing))), ""))
    return [(f"shipped book, cold eval: {name}", value, target) for name, value, target in rows]


def shipped_site(folder: Path) -> list[Row]:
    """The executed shipped book's site, a no-op, and edits seen through ``serve``."""
    from tools.bench_common import copy_book

    root = folder / "served"
    copy_book(REPO, root)
    build(root, "eval")
    site = build(root).wall
    noop = statistics.median(build(root).wall for _ in range(3))
    prose = serve_latency(root, 5)
    formula = serve_latency(root, 5, formula=True)
    return [
        ("site of the executed book (cold Sphinx)", f"{site:.2f} s", "<= 3.7 s"),
        ("no-op rebuild", f"{noop:.2f} s", "<= 0.2 s"),
        ("serve: a prose edit to the browser, median of 5", f"{prose:.2f} s", "<= 0.25 s"),
        ("serve: a formula edit to the browser, median of 5", f"{formula:.2f} s", "<= 1 s"),
    ]


SERVED_PAGE = "chapter_linear-regression/linear-regression.md"  # edited under serve
SERVE_EDITS = 5


def d2l_serve(book: Path, folder: Path) -> list[Row]:
    """``polybook serve`` on d2l-en whole (eval off, PyTorch) from a warm ``_build/``: the
    first page served, then prose edits of one page seen in the browser, the first
    included."""
    root = _d2l_copy(book, folder / "served-d2l")
    _polybook(root, "html", "--tab", "pytorch")
    served = serve_edits(root, root / SERVED_PAGE, SERVE_EDITS, "--tab", "pytorch")
    edits = served.latencies
    spread = f"({min(edits):.2f}–{max(edits):.2f})"
    name = f"d2l-en whole, serve: a prose edit to the browser, median of {SERVE_EDITS}"
    return [
        (
            "d2l-en whole, serve: first page served, warm _build/",
            f"{served.first_page:.2f} s",
            "<= 5 s",
        ),
        (name, f"median {statistics.median(edits):.2f} s {spread}", "<= 0.5 s"),
        (
            f"d2l-en whole, serve: the worst of those {SERVE_EDITS} edits",
            f"{max(edits):.2f} s",
            "<= 1 s",
        ),
    ]


def d2l_figures() -> list[Row]:
    """Rows for ``show``: what the section measures, or why it did not."""
    book, python = os.environ.get("D2L_EN", ""), os.environ.get("D2LBOOK_PYTHON", "")
    with tempfile.TemporaryDirectory(prefix="polybook-bench-d2l-") as tmp:
        folder = Path(tmp)
        rows = shipped_site(folder)
        if not (book and python and (Path(book) / "config.ini").is_file()):
            why = "set D2L_EN (a d2l-en checkout) and D2LBOOK_PYTHON (d2lbook 1.0.3, torch)"
            return [("against d2lbook: not measured", why, ""), *rows]
        parts: list[tuple[str, Callable[[], list[Row]]]] = [
            ("shipped book, cold eval", lambda: shipped_eval(python, folder)),
            ("d2l-en html, eval off", lambda: d2l_html(Path(book), python, folder)),
            ("d2l-en whole, serve", lambda: d2l_serve(Path(book), folder)),
        ]
        for part, measure in parts:
            try:
                rows += measure()
            except Failed as failed:
                rows.append((f"{part}: not measured", str(failed), ""))
    return rows


if __name__ == "__main__":
    from tools.bench_common import show

    show(TITLE, d2l_figures())
    sys.exit(0)
