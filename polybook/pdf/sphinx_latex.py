"""The PDF's Sphinx extension: source markers in the LaTeX, SVG figures as PDF.

Each block of the generated ``.tex`` is preceded by a comment naming the author's line it
comes from, ``%PB chapter/page.md:42``, so that a LaTeX error, which xelatex reports at a
line of the ``.tex``, is traced back to the Markdown (:mod:`polybook.pdf.log`). The
comments are placed where they change nothing TeX reads: on a line of their own, only at
the start of a line or before a line break.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms.images import ImageConverter
from sphinx.writers.latex import LaTeXTranslator

from polybook.pdf.latex import svg_to_pdf
from polybook.pdf.log import MARKER
from polybook.render.sphinx.core_ext import pb_panel, pb_tabset
from polybook.render.sphinx.log import Mapper

SENTINEL = re.compile("\x00PB([^\x00]*)\x00")  # a marker while the body is being written
# Where a block may be marked: in the flow of the text, not in tables, lists or captions.
FLOW = (nodes.document, nodes.section, nodes.container, pb_tabset, pb_panel)


def _marked(node: nodes.Node) -> bool:
    if isinstance(node, (nodes.Special, nodes.Invisible, nodes.Inline)):
        return False
    return isinstance(node, (nodes.Body, nodes.section)) and isinstance(node.parent, FLOW)


def resolve_markers(text: str) -> str:
    """Turn each sentinel into a comment line that leaves TeX's input as it was: at the
    start of a line ``%PB …`` and its line break; before a line break, a line break and
    ``%PB …`` (the break that follows ends it); elsewhere it is dropped."""
    out: list[str] = []
    pos, tail = 0, "\n"  # the end of what was written
    for match in SENTINEL.finditer(text):
        chunk = text[pos : match.start()]
        out.append(chunk)
        tail = (tail + chunk)[-16:]
        pos = match.end()
        following, marker = text[pos : pos + 1], MARKER + match.group(1)
        escaped = (len(tail) - len(tail.rstrip("\\"))) % 2  # a "%" here would be "\%"
        if following == "\x00":
            continue  # the next marker stands for this place
        if tail.endswith("\n"):
            out.append(f"{marker}\n")
        elif following == "\n":
            out.append(f"\n{marker}")
        elif following and not following.isspace() and not escaped:
            out.append(f"%\n{marker}\n")  # B on a line of its own reads as it did after A
            tail = "\n"
    out.append(text[pos:])
    return "".join(out)


class MarkedLaTeXTranslator(LaTeXTranslator):
    """Sphinx's LaTeX writer, with a marker of the author's line before each block."""

    def __init__(self, document: nodes.document, builder: Any, theme: Any) -> None:
        super().__init__(document, builder, theme)
        self.pb_mapper = Mapper(Path(builder.srcdir))
        self.pb_last = ""

    def dispatch_visit(self, node: nodes.Node) -> None:
        if _marked(node):
            place = self.pb_mapper.place(node)
            where = f"{place.path}:{place.line}" if place.docname and place.line else ""
            if where and where != self.pb_last:
                self.body.append(f"\x00PB{where}\x00")
                self.pb_last = where
        super().dispatch_visit(node)

    def astext(self) -> str:
        self.body = [resolve_markers("".join(self.body))]
        return str(super().astext())


class SvgToPdf(ImageConverter):
    """SVG figures and outputs as PDF, by ``rsvg-convert`` (librsvg), kept between runs."""

    conversion_rules = [("image/svg+xml", "application/pdf")]  # noqa: RUF012 (Sphinx's API)

    def is_available(self) -> bool:
        return shutil.which("rsvg-convert") is not None

    def convert(self, _from: str | os.PathLike[str], _to: str | os.PathLike[str]) -> bool:
        failed = svg_to_pdf(Path(_from), Path(_to))
        if failed:
            raise ExtensionError(failed)
        return True


def setup(app: Sphinx) -> dict[str, Any]:
    app.set_translator("latex", MarkedLaTeXTranslator, override=True)
    app.add_post_transform(SvgToPdf)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
