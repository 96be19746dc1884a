"""Math rendered at build time: each formula of a page becomes SVG drawn by MathJax's own Node
build (the pinned ``mathjax`` npm package that ``polybook env assets`` installs), so that a
page carries its math and loads no script or font for it.

Formulas are drawn once: each SVG is kept in the doctree folder (``pb-math/<hash>.svg``) and
a page asks Node only for those it lacks, in one run. Each formula is an image to assistive
technology, named by its TeX. Without Node or MathJax a formula shows as its TeX, with a
``site.math`` warning.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

from polybook.fsutil import write_atomic
from polybook.render.assets import mathjax
from polybook.site.math_speech import spoken

logger = logging.getLogger(__name__)
RENDERER = "pb-svg"
SCRIPT = Path(__file__).resolve().parent / "node" / "tex2svg.js"
# Attributes MathJax's SVG carries for itself (its source nodes, character codes): the
# drawing does not need them, and pages carry less.
ROLE = re.compile(r'\s(?:role|focusable|data-mml-node|data-c)="[^"]*"')

Formula = tuple[str, bool]  # (TeX, display)


def display_tex(node: nodes.math_block) -> str:
    """A display block's TeX: its equations (a blank line apart) aligned as one."""
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    if len(parts) > 1:
        return "\\begin{aligned}" + "\\\\".join(parts) + "\\end{aligned}"
    return parts[0] if parts else ""


def _key(formula: Formula) -> str:
    tex, display = formula
    return hashlib.sha256(f"{int(display)}\0{tex}".encode()).hexdigest()[:32] + ".svg"


def draw(folder: Path, formulas: set[Formula]) -> dict[Formula, str]:
    """The SVG of each formula, drawing in one Node run those ``folder`` does not hold."""
    missing = sorted(f for f in formulas if not (folder / _key(f)).is_file())
    node = shutil.which("node")
    if missing and node and mathjax().parent.is_dir():
        run = subprocess.run(
            [node, str(SCRIPT), str(mathjax().parent)],
            input=json.dumps(missing),
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode == 0:
            for formula, svg in zip(missing, json.loads(run.stdout), strict=True):
                write_atomic(folder / _key(formula), svg)
        else:
            logger.warning("MathJax could not draw this page's math: %s", run.stderr[-400:])
    elif missing:
        logger.warning("no Node or MathJax to draw math with: `polybook env assets` installs it")
    found = {}
    for formula in formulas:
        path = folder / _key(formula)
        if path.is_file():
            found[formula] = path.read_text(encoding="utf-8")
    return found


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


def on_env_updated(app: Sphinx, env: Any) -> list[str]:
    """Draw every page's missing formulas in one Node run, before pages are written (one run
    a page cost a Node start each: 40 s of a 200-page book)."""
    if _ours(app):
        every = set().union(*_book_formulas(env).values())
        if every:
            draw(Path(app.doctreedir) / "pb-math", every)
    return []


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    builder: Any = app.builder
    if not _ours(app):
        return
    formulas = _formulas(doctree)
    if not hasattr(builder, "pb_math"):
        builder.pb_math = {}
    if formulas:
        builder.pb_math.update(draw(Path(app.doctreedir) / "pb-math", formulas))


def _drawn(self: Any, formula: Formula) -> str:
    tex = formula[0]
    svg = getattr(self.builder, "pb_math", {}).get(formula)
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
    app.add_html_math_renderer(RENDERER, (visit_math, None), (visit_displaymath, None))
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-purge-doc", on_purge_doc)
    app.connect("env-merge-info", on_merge_info)
    app.connect("env-updated", on_env_updated)
    app.connect("doctree-resolved", on_doctree_resolved)
