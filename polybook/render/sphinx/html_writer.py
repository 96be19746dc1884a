"""Sphinx's HTML writer with what assistive technology needs beside it (the site and the
epub use it): the navigation's captions are headings with a level, and citations are items
of their list."""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator

CAPTION = 'class="caption" role="heading"'  # Sphinx's toctree caption, without a level


class AccessibleHTMLTranslator(HTML5Translator):
    """Sphinx's HTML5 writer; the markup it changes is in each method's documentation."""

    def visit_title(self, node: nodes.title) -> None:
        """A toctree's caption (``<p role="heading">``) also says its level, as ARIA asks."""
        super().visit_title(node)
        parent = node.parent
        if isinstance(parent, addnodes.compact_paragraph) and parent.get("toctree"):
            for index in range(len(self.body) - 1, -1, -1):
                if CAPTION in self.body[index]:
                    self.body[index] = self.body[index].replace(
                        CAPTION, f'{CAPTION} aria-level="2"'
                    )
                    break

    def visit_citation(self, node: nodes.citation) -> None:
        """A citation is an item of docutils' ``role="list"``: the deprecated
        ``doc-biblioentry`` role is not one a list may hold."""
        super().visit_citation(node)
        self.body[-1] = self.body[-1].replace('role="doc-biblioentry"', 'role="listitem"')


def setup_writer(app: Sphinx) -> None:
    """Use the writer for the builder of this run when it writes HTML pages (the site's, the
    epub's: whatever output runs it)."""
    app.connect("builder-inited", _use_writer)


def _use_writer(app: Sphinx) -> None:
    if app.builder.format == "html":
        app.set_translator(app.builder.name, AccessibleHTMLTranslator, override=True)
