"""Three of Sphinx's read transforms, each one walk of the page without a call per node.

Sphinx names the footnotes' page on them (for LaTeX), counts the translated nodes and
removes the inline nodes a translation left, each by matching every node of the page with a
Python function: on d2l-en, a tenth of a page's read for pages that have none of these
nodes. Here the same transforms find their nodes in one loop over the tree, and do as
Sphinx does with what they find (Sphinx's own code where a translation left inline nodes).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.transforms import Transform
from sphinx.application import Sphinx
from sphinx.builders.latex.transforms import FootnoteDocnameUpdater
from sphinx.transforms.i18n import RemoveTranslatableInline, TranslationProgressTotaliser


def elements(root: nodes.Node) -> list[nodes.Element]:
    """Every element under ``root`` (itself too), in document order."""
    found: list[nodes.Element] = []
    waiting: list[nodes.Node] = [root]
    while waiting:
        node = waiting.pop()
        if isinstance(node, nodes.Element):
            found.append(node)
            waiting.extend(reversed(node.children))
    return found


class FootnotePages(FootnoteDocnameUpdater):
    """Sphinx's: each footnote and footnote reference names its page."""

    def apply(self, **kwargs: Any) -> None:
        docname = self.env.current_document.docname
        for node in elements(self.document):
            if isinstance(node, self.TARGET_NODES):
                node["docname"] = docname


class TranslationProgress(TranslationProgressTotaliser):
    """Sphinx's: how many of the page's elements a translation could have changed, and did."""

    def apply(self, **kwargs: Any) -> None:
        from sphinx.builders.gettext import MessageCatalogBuilder

        if issubclass(self.env._builder_cls, MessageCatalogBuilder):
            return
        marked = [node["translated"] for node in elements(self.document) if "translated" in node]
        progress = {"total": len(marked), "translated": sum(1 for done in marked if done)}
        self.document["translation_progress"] = progress


class TranslatableInlines(RemoveTranslatableInline):
    """Sphinx's, where a translation left inline nodes; else nothing to remove."""

    def apply(self, **kwargs: Any) -> None:
        found = elements(self.document)
        if any(isinstance(node, nodes.inline) and "translatable" in node for node in found):
            super().apply(**kwargs)


REPLACED: dict[type[Transform], type[Transform]] = {
    FootnoteDocnameUpdater: FootnotePages,
    TranslationProgressTotaliser: TranslationProgress,
    RemoveTranslatableInline: TranslatableInlines,
}


def setup(app: Sphinx) -> None:
    found: list[type[Transform]] = app.registry.transforms
    found[:] = [REPLACED.get(transform, transform) for transform in found]
