"""The epub's Sphinx extension: math as MathML, which every EPUB 3 reader shows without a
script or a network (docutils converts the TeX), and the content files that hold it
declared so in the package document, as EPUB 3 asks."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docutils import nodes
from docutils.utils.math import MathError
from docutils.utils.math.latex2mathml import tex2mathml
from sphinx.application import Sphinx
from sphinx.builders.epub3 import Epub3Builder
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)
PACKAGE = "content.opf"
XHTML_ITEM = re.compile(r'<item id="[^"]*" href="([^"]+)" media-type="application/xhtml\+xml" />')


def _mathml(self: Any, node: nodes.Element, block: bool) -> str:
    """The node's TeX as MathML; the TeX itself, with a warning, where it cannot be."""
    tex = node.astext()
    try:
        return str(tex2mathml(tex, as_block=block))
    except MathError as err:
        logger.warning(
            "this formula shows as TeX in the epub: %s", err, location=node, type="epub.math"
        )
        return f'<code class="pb-tex">{html.escape(tex)}</code>'


def visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(_mathml(self, node, block=False))
    raise nodes.SkipNode


def visit_displaymath(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})</span>')
    self.body.append(_mathml(self, node, block=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


class MathMLEpubBuilder(Epub3Builder):
    """Sphinx's EPUB 3 builder; the content files that hold MathML say so, and the NCX
    names the book as the package document does."""

    def build_content(self) -> None:
        super().build_content()
        package = Path(self.outdir) / PACKAGE
        text = package.read_text(encoding="utf-8")

        def declare(match: re.Match[str]) -> str:
            page = Path(self.outdir) / unquote(html.unescape(match.group(1)))
            holds = "<math" in page.read_text(encoding="utf-8") if page.is_file() else False
            return match.group(0)[:-3] + ' properties="mathml" />' if holds else match.group(0)

        package.write_text(XHTML_ITEM.sub(declare, text), encoding="utf-8")

    def toc_metadata(self, level: int, navpoints: list[Any]) -> dict[str, Any]:
        """The NCX's ``dtb:uid`` is the book's identifier, as EPUBCheck (NCX-001) asks;
        Sphinx writes the identifier's element id there."""
        metadata = super().toc_metadata(level, navpoints)
        metadata["uid"] = html.escape(self.config.epub_identifier)
        return metadata


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_builder(MathMLEpubBuilder, override=True)
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
