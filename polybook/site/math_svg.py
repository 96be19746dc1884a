"""Math rendered at build time: each formula of a page becomes SVG drawn by MathJax's own Node
build (the pinned ``mathjax`` npm package that ``polybook env assets`` installs), so that a
page carries its math and loads no script or font for it.

Formulas are drawn once: each SVG is kept in the build's cache (``_build/cache/math/
mathjax-<version>/<hash>.svg``, named by its TeX and display mode; kept by ``make clean``),
and a build asks Node only for those the cache lacks, split among as many Node processes as
there are CPUs. A second build draws nothing; an edited page draws only its new formulas.
Each run says what it drew (``last-run.json`` beside the drawings, :class:`Drawing`). Each
formula is an image to assistive technology, named by its TeX. Without Node or MathJax a
formula shows as its TeX, with a ``site.math`` warning.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

from polybook.fsutil import write_atomic, write_new
from polybook.parallel import usable_cpus
from polybook.render.assets import mathjax
from polybook.site.math_speech import spoken

logger = logging.getLogger(__name__)
RENDERER = "pb-svg"
SCRIPT = Path(__file__).resolve().parent / "node" / "tex2svg.js"
# Attributes MathJax's SVG carries for itself (its source nodes, character codes): the
# drawing does not need them, and pages carry less.
ROLE = re.compile(r'\s(?:role|focusable|data-mml-node|data-c)="[^"]*"')
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


def display_tex(node: nodes.math_block) -> str:
    """A display block's TeX: its equations (a blank line apart) aligned as one."""
    return aligned_tex(node.astext())


def aligned_tex(text: str) -> str:
    """The TeX a display block of ``text`` is drawn from (see :func:`display_tex`)."""
    parts = [part for part in text.split("\n\n") if part.strip()]
    if len(parts) > 1:
        return "\\begin{aligned}" + "\\\\".join(parts) + "\\end{aligned}"
    return parts[0] if parts else ""


def _key(formula: Formula) -> str:
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
        write_new(folder / _key(formula), svg.encode("utf-8"))
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
    missing = sorted(f for f in formulas if not (folder / _key(f)).is_file())
    drawing = _draw_missing(folder, missing, workers) if missing else Drawing()
    if not read:
        drawing.svgs = dict.fromkeys(formulas, "")
        return drawing
    for formula in formulas:
        path = folder / _key(formula)
        if path.is_file():
            drawing.svgs[formula] = path.read_text(encoding="utf-8")
    return drawing


def _formulas(doctree: nodes.Node) -> set[Formula]:
    found = {(node.astext(), False) for node in doctree.findall(nodes.math)}
    return found | {(display_tex(node), True) for node in doctree.findall(nodes.math_block)}


def _ours(app: Sphinx) -> bool:
    return getattr(app.builder, "math_renderer_name", None) == RENDERER


def _book_formulas(env: Any) -> dict[str, set[Formula]]:
    """Each page's formulas (docname -> formulas), kept in the environment between runs."""
    if not hasattr(env, "pb_formulas"):
        env.pb_formulas = {}
    found: dict[str, set[Formula]] = env.pb_formulas
    return found


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    if _ours(app):
        _book_formulas(app.env)[app.env.docname] = _formulas(doctree)


def on_purge_doc(app: Sphinx, env: Any, docname: str) -> None:
    _book_formulas(env).pop(docname, None)


def on_merge_info(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    ours = _book_formulas(env)
    for docname, formulas in _book_formulas(other).items():
        if docname in docnames:
            ours[docname] = formulas


def _folder(app: Any) -> Path:
    """This build's drawings: the build's math cache (``pb_math_cache``), else beside the
    doctrees (``app``: the Sphinx application or its builder)."""
    return cache_folder(Path(app.config.pb_math_cache or Path(app.doctreedir) / "pb-math"))


class Drawer:
    """The drawing of the book's missing formulas, begun once every page is read and waited
    for when the pages are about to be written: Node draws while Sphinx formats the
    citations, numbers the figures and saves its environment."""

    pending: Future[None] | None = None
    checked: Path | None = None  # the folder this process drew every formula of the book in
    reading: frozenset[str] = frozenset()  # the pages this build reads

    @classmethod
    def read(cls, app: Sphinx, env: Any, docnames: list[str]) -> None:
        cls.reading = frozenset(docnames)

    @classmethod
    def begin(cls, folder: Path, formulas: set[Formula]) -> None:
        cls.wait()

        def run() -> None:
            with drawing_lock(folder):  # after an early drawing, if one is under way
                drawing = draw(folder, formulas, read=False) if formulas else Drawing()
            write_atomic(folder / REPORT, json.dumps(drawing.counts()))

        pool = ThreadPoolExecutor(1)
        cls.pending = pool.submit(run)
        pool.shutdown(wait=False)

    @classmethod
    def wait(cls, *_: Any) -> None:
        """Until the drawing is done (its error raised here)."""
        pending, cls.pending = cls.pending, None
        if pending is not None:
            pending.result()


def on_env_updated(app: Sphinx, env: Any) -> list[str]:
    """Begin drawing every page's missing formulas, in one Node run per CPU at most (one
    run a page cost a Node start each: 40 s of a 200-page book). A process that did so
    before (the one ``polybook serve`` keeps) looks at the pages it read alone: the others'
    are drawn (and a page written draws what it misses, see :func:`on_doctree_resolved`)."""
    if _ours(app):
        folder, found = _folder(app), _book_formulas(env)
        pages = Drawer.reading if Drawer.checked == folder else found.keys()
        Drawer.begin(folder, set().union(*(found.get(page, ()) for page in pages)))
        Drawer.checked = folder
    return []


def last_run(base: Path) -> dict[str, int]:
    """What the last build drew (:meth:`Drawing.counts`) with its drawings under ``base``;
    empty where it drew nothing of math (no page read, or none of its pages has any)."""
    try:
        found = json.loads((cache_folder(base) / REPORT).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): int(v) for k, v in found.items()} if isinstance(found, dict) else {}


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    builder: Any = app.builder
    if not _ours(app):
        return
    formulas = _formulas(doctree)
    if not hasattr(builder, "pb_math"):
        builder.pb_math = {}
    if formulas:
        builder.pb_math.update(draw(_folder(app), formulas).svgs)


def _svg(builder: Any, formula: Formula) -> str | None:
    """The drawing of ``formula``: read for the page being written, else (a formula its
    toctree took from another page's title, resolved after the page's own) from the cache."""
    svg: str | None = getattr(builder, "pb_math", {}).get(formula)
    if svg is None:
        path = _folder(builder) / _key(formula)
        svg = path.read_text(encoding="utf-8") if path.is_file() else None
    return svg


def _drawn(self: Any, formula: Formula) -> str:
    tex = formula[0]
    svg = _svg(self.builder, formula)
    label = html.escape(spoken(tex), quote=True)  # read out in words
    if svg is None:
        return f'<code class="pb-tex">{html.escape(tex)}</code>'
    inner = ROLE.sub("", svg).replace("<svg ", '<svg aria-hidden="true" ', 1)
    kind = "pb-math-display" if formula[1] else "pb-math-inline"
    return f'<span class="pb-math {kind}" role="img" aria-label="{label}">{inner}</span>'


def visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(_drawn(self, (node.astext(), False)))
    raise nodes.SkipNode


def visit_displaymath(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, "Link to this equation")
        self.body.append("</span>")
    self.body.append(_drawn(self, (display_tex(node), True)))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> None:
    app.add_config_value("pb_math_cache", "", "", str)  # the build's math cache
    app.add_html_math_renderer(RENDERER, (visit_math, None), (visit_displaymath, None))
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-purge-doc", on_purge_doc)
    app.connect("env-merge-info", on_merge_info)
    app.connect("env-before-read-docs", Drawer.read, priority=950)  # once others added any
    app.connect("env-updated", on_env_updated, priority=100)  # before the citations'
    app.connect("write-started", Drawer.wait)
    app.connect("build-finished", Drawer.wait)
    app.connect("doctree-resolved", on_doctree_resolved)
