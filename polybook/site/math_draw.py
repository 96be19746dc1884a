"""MathJax's drawings of formulas, kept in a cache folder: the part of the site's build-time
math (:mod:`.math_svg`) that needs no Sphinx, so that a cold build's early drawing
(:mod:`.math_prefetch`) starts without importing it.

Each SVG lies in the cache as ``<hash>.svg``, named by its TeX and display mode, under a
folder named by MathJax's version; a drawing asks Node only for what the folder lacks,
split among as many Node processes as there are CPUs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from polybook.fsutil import write_new
from polybook.parallel import usable_cpus
from polybook.render.assets import mathjax

# Sphinx's own logger for this name (a build's Sphinx reports what it warns of); a process
# without Sphinx (the early drawing) has no handler for it.
logger = logging.getLogger("sphinx.polybook.site.math_svg")
SCRIPT = Path(__file__).resolve().parent / "node" / "tex2svg.js"
# Formulas a Node process draws at least: its start (Node, MathJax's TeX and SVG) costs
# about as much as drawing 50 formulas, so a few new formulas are one run.
PER_RUN = 50
REPORT = "last-run.json"
LOCK = ".drawing.lock"  # held by the process drawing into the folder (see drawing_lock)

Formula = tuple[str, bool]  # (TeX, display)


@dataclass
class Drawing:
    """What a build drew: the SVG of each formula asked for, how many of them Node drew
    (the others came from the cache) and in how many Node processes."""

    svgs: dict[Formula, str] = field(default_factory=dict)
    drawn: int = 0
    node_runs: int = 0

    def counts(self) -> dict[str, int]:
        return {"formulas": len(self.svgs), "drawn": self.drawn, "node_runs": self.node_runs}


def aligned_tex(text: str) -> str:
    """The TeX a display block of ``text`` is drawn from (see :func:`display_tex`)."""
    parts = [part for part in text.split("\n\n") if part.strip()]
    if len(parts) > 1:
        return "\\begin{aligned}" + "\\\\".join(parts) + "\\end{aligned}"
    return parts[0] if parts else ""


def svg_name(formula: Formula) -> str:
    tex, display = formula
    return hashlib.sha256(f"{int(display)}\0{tex}".encode()).hexdigest()[:32] + ".svg"


def mathjax_version() -> str:
    """The installed MathJax's version (its ``package.json``); "" where none is."""
    try:
        return str(json.loads((mathjax().parent / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def cache_folder(base: Path) -> Path:
    """Where the drawings of this MathJax lie under ``base``: another version draws anew."""
    return base / f"mathjax-{mathjax_version() or 'none'}"


def _node_run(node: str, formulas: list[Formula]) -> list[str] | str:
    """The SVGs of ``formulas`` from one Node process, or its error."""
    run = subprocess.run(
        [node, str(SCRIPT), str(mathjax().parent)],
        input=json.dumps(formulas),
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:
        return run.stderr[-400:]
    drawn: list[str] = json.loads(run.stdout)
    return drawn


class WarmNode:
    """One Node process with MathJax loaded, kept while this Sphinx process lives: an
    edit's few new formulas (``polybook serve``) cost no Node start. It ends with its stdin,
    when this process ends."""

    process: subprocess.Popen[str] | None = None
    owner = 0  # the process that started it (Sphinx's forked writers start their own)
    lock = threading.Lock()

    @classmethod
    def start(cls, node: str) -> subprocess.Popen[str]:
        with cls.lock:
            if cls.process is None or cls.owner != os.getpid() or cls.process.poll() is not None:
                cls.owner = os.getpid()
                command = [node, str(SCRIPT), str(mathjax().parent), "--lines"]
                cls.process = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
            return cls.process

    @classmethod
    def draw(cls, node: str, formulas: list[Formula]) -> list[str] | str:
        process = cls.start(node)
        with cls.lock:
            try:
                if process.stdin is None or process.stdout is None:
                    raise OSError("no pipes")
                process.stdin.write(json.dumps(formulas) + "\n")
                process.stdin.flush()
                drawn: list[str] = json.loads(process.stdout.readline())
            except (OSError, ValueError):
                cls.process = None
                return _node_run(node, formulas)  # drawn afresh: its error, if any, said
        return drawn


@contextlib.contextmanager
def drawing_lock(folder: Path) -> Iterator[None]:
    """Held while one process draws a book's formulas into ``folder`` (a cold build's early
    drawing, see :mod:`.math_prefetch`, then its Sphinx's): the other waits, then draws only
    what is still missing."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _keep(folder: Path, share: list[Formula], result: list[str] | str) -> int:
    """Write the drawings of ``share`` (or warn of Node's error); how many were drawn."""
    if isinstance(result, str):
        logger.warning("MathJax could not draw this page's math: %s", result)
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    for formula, svg in zip(share, result, strict=True):
        write_new(folder / svg_name(formula), svg.encode("utf-8"))
    return len(share)


def _draw_missing(folder: Path, missing: list[Formula], workers: int) -> Drawing:
    """Draw ``missing`` into ``folder``: a few in the warm Node process, many in up to
    ``workers`` fresh ones at once."""
    node = shutil.which("node")
    if not (node and mathjax().parent.is_dir()):
        logger.warning("no Node or MathJax to draw math with: `polybook env assets` installs it")
        return Drawing()
    runs = max(1, min(workers or usable_cpus(), len(missing) // PER_RUN))
    if len(missing) <= PER_RUN:
        return Drawing(drawn=_keep(folder, missing, WarmNode.draw(node, missing)), node_runs=1)
    shares = [missing[i::runs] for i in range(runs)]
    with ThreadPoolExecutor(runs) as pool:  # each share kept as soon as it is drawn
        drawn = sum(pool.map(lambda share: _keep(folder, share, _node_run(node, share)), shares))
    return Drawing(drawn=drawn, node_runs=runs)


def draw(folder: Path, formulas: set[Formula], workers: int = 0, read: bool = True) -> Drawing:
    """The SVG of each formula, drawing those ``folder`` does not hold (in up to
    ``workers`` Node processes; 0: one per CPU); ``read``: False where only the drawing is
    wanted (the pages read theirs as they are written)."""
    missing = sorted(f for f in formulas if not (folder / svg_name(f)).is_file())
    drawing = _draw_missing(folder, missing, workers) if missing else Drawing()
    if not read:
        drawing.svgs = dict.fromkeys(formulas, "")
        return drawing
    for formula in formulas:
        path = folder / svg_name(formula)
        if path.is_file():
            drawing.svgs[formula] = path.read_text(encoding="utf-8")
    return drawing


def last_run(base: Path) -> dict[str, int]:
    """What the last build drew (:meth:`Drawing.counts`) with its drawings under ``base``;
    empty where it drew nothing of math (no page read, or none of its pages has any)."""
    try:
        found = json.loads((cache_folder(base) / REPORT).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): int(v) for k, v in found.items()} if isinstance(found, dict) else {}
