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

import html
import json
import re
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.math import get_node_equation_number

from polybook.fsutil import write_atomic
from polybook.site.math_draw import (
    REPORT,
    Drawing,
    Formula,
    aligned_tex,
    cache_folder,
    draw,
    drawing_lock,
    svg_name,
)
from polybook.site.math_speech import spoken

RENDERER = "pb-svg"
# Attributes MathJax's SVG carries for itself (its source nodes, character codes): the
# drawing does not need them, and pages carry less.
ROLE = re.compile(r'\s(?:role|focusable|data-mml-node|data-c)="[^"]*"')


def display_tex(node: nodes.math_block) -> str:
    """A display block's TeX: its equations (a blank line apart) aligned as one."""
    return aligned_tex(node.astext())


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
        path = _folder(builder) / svg_name(formula)
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
