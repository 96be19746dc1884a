"""Headings marked ``{.unnumbered}`` take no number, in the site and in the PDF.

The renderer gives their sections the class ``pb-unnumbered`` (MyST's block attributes).
Sphinx numbers every section of a numbered toc: once it has, the page's numbers are worked
out again without those sections (nor the sections below them), so that the ones after
them follow on as if they were not there. A page whose title is unnumbered loses all its
numbers and, in a numbered toc, counts none: the pages after it go on from the one
before it, as Quarto numbers chapters across a part's page. In LaTeX the section is set
with ``secnumdepth`` lowered for its title alone: it is in the PDF's table of contents,
without a number, and counts no number.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.writers.latex import LaTeXTranslator

from polybook.render.pandoc_divs import UNNUMBERED_CLASS

Number = tuple[int, ...]


def _found(env: BuildEnvironment) -> dict[str, set[str]]:
    """By page, the anchors (``#id``; ``""`` for its title) of its unnumbered sections."""
    if not hasattr(env, "pb_unnumbered"):
        env.pb_unnumbered = {}  # type: ignore[attr-defined]
    return env.pb_unnumbered  # type: ignore[attr-defined,no-any-return]


def _collect(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    anchors: set[str] = set()
    for section in doctree.findall(nodes.section):
        if UNNUMBERED_CLASS in section["classes"] and section["ids"]:
            top = section.parent is doctree or isinstance(section.parent, nodes.document)
            anchors.add("" if top else f"#{section['ids'][0]}")
    if anchors:
        _found(app.env)[docname] = anchors
    else:
        _found(app.env).pop(docname, None)


def _skip_unnumbered_title(app: Sphinx, doctree: nodes.document) -> None:
    """A page whose title is unnumbered (a ``_quarto.yml`` part's page) counts no number in
    a numbered toc: its entries are skipped where Sphinx numbers them, so that the pages
    after it go on from the one before it (after the toc collector has read the page). The
    pages its own tocs list move up beside it, so that they count on at its level, as a
    part's chapters do, and show beside it in the site's toc."""
    if "" not in _found(app.env).get(app.env.docname, ()):
        return
    toc = app.env.tocs.get(app.env.docname)
    if toc is None:
        return
    for entry in toc.findall(addnodes.compact_paragraph):
        entry["skip_section_number"] = True
    for tree in list(toc.findall(addnodes.toctree)):
        if tree.parent is not toc:
            tree.parent.remove(tree)
            toc.append(tree)


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _found(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: Any) -> None:
    theirs = _found(other)
    _found(env).update({name: theirs[name] for name in docnames if name in theirs})


def renumbered(numbers: dict[str, Number], unnumbered: set[str]) -> dict[str, Number]:
    """A page's section numbers, those of ``unnumbered`` (anchors) and the sections below
    them empty; the sections after one left out move up by one. (An anchor must stay, empty:
    Sphinx gives a section it does not find the page's own number.)"""
    if "" in unnumbered:
        return dict.fromkeys(numbers, ())
    gone: list[Number] = [numbers[a] for a in unnumbered if a in numbers]
    kept: dict[str, Number] = {}
    for anchor, number in numbers.items():
        if any(number[: len(old)] == old for old in gone):
            kept[anchor] = ()
            continue
        new = list(number)
        for old in gone:  # a sibling before it, or a sibling of a section above it
            depth = len(old) - 1
            if len(number) > depth and number[:depth] == old[:depth] and number[depth] > old[depth]:
                new[depth] -= 1
        kept[anchor] = tuple(new)
    return kept


def _renumber(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """After Sphinx has numbered the sections: the pages whose numbers changed."""
    changed = []
    for docname, anchors in _found(env).items():
        numbers = env.toc_secnumbers.get(docname)
        if numbers:
            kept = env.toc_secnumbers[docname] = renumbered(numbers, anchors)
            for reference in env.tocs[docname].findall(nodes.reference):  # the tocs' numbers
                anchor = reference.get("anchorname", "")
                if kept.get(anchor):
                    reference["secnumber"] = kept[anchor]
                else:
                    reference.attributes.pop("secnumber", None)
            changed.append(docname)
    return changed


def _unnumbered_title(node: nodes.Element) -> bool:
    section = node.parent
    return isinstance(section, nodes.section) and UNNUMBERED_CLASS in section["classes"]


def visit_title_latex(self: LaTeXTranslator, node: nodes.Element) -> None:
    numbered = not _unnumbered_title(node) or self.this_is_the_title
    if not numbered:
        self.body.append(
            r"\edef\pbsecnumdepth{\arabic{secnumdepth}}\setcounter{secnumdepth}{-10}" + "\n"
        )
    node["pb_unnumbered"] = not numbered
    LaTeXTranslator.visit_title(self, node)


def depart_title_latex(self: LaTeXTranslator, node: nodes.Element) -> None:
    LaTeXTranslator.depart_title(self, node)
    if node.get("pb_unnumbered"):
        self.body.append(r"\setcounter{secnumdepth}{\pbsecnumdepth}" + "\n")


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", _collect)
    app.connect("doctree-read", _skip_unnumbered_title, priority=600)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-updated", _renumber, priority=900)  # after Sphinx's numbering
    app.add_node(nodes.title, override=True, latex=(visit_title_latex, depart_title_latex))
