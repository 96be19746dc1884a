"""The epub's Sphinx extension: math as the site has it, SVG drawn at build time by MathJax
(:mod:`polybook.site.math_svg`), which every EPUB 3 reader shows without a script, a font
or a network; the content files that hold inline SVG (or MathML) declared so in the
package document, as EPUB 3 asks."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from sphinx.application import Sphinx
from sphinx.builders.epub3 import Epub3Builder

from polybook.site import math_svg

PACKAGE = "content.opf"
XHTML_ITEM = re.compile(r'<item id="[^"]*" href="([^"]+)" media-type="application/xhtml\+xml" />')
# What a content document holds -> the manifest property EPUB 3 asks it to declare.
PROPERTIES = (("<svg", "svg"), ("<math", "mathml"))


class MathEpubBuilder(Epub3Builder):
    """Sphinx's EPUB 3 builder; the content files that hold SVG or MathML say so, and the
    NCX names the book as the package document does."""

    def build_content(self) -> None:
        super().build_content()
        package = Path(self.outdir) / PACKAGE
        text = package.read_text(encoding="utf-8")

        def declare(match: re.Match[str]) -> str:
            page = Path(self.outdir) / unquote(html.unescape(match.group(1)))
            held = page.read_text(encoding="utf-8") if page.is_file() else ""
            found = [name for mark, name in PROPERTIES if mark in held]
            if not found:
                return match.group(0)
            return match.group(0)[:-3] + f' properties="{" ".join(found)}" />'

        package.write_text(XHTML_ITEM.sub(declare, text), encoding="utf-8")

    def toc_metadata(self, level: int, navpoints: list[Any]) -> dict[str, Any]:
        """The NCX's ``dtb:uid`` is the book's identifier, as EPUBCheck (NCX-001) asks;
        Sphinx writes the identifier's element id there."""
        metadata = super().toc_metadata(level, navpoints)
        metadata["uid"] = html.escape(self.config.epub_identifier)
        return metadata


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_builder(MathEpubBuilder, override=True)
    math_svg.setup(app)  # the renderer the epub's settings name, as the site's
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
