"""References that resolve to nothing read as text in every output, never as ``??`` or a
role's raw target: ``:numref:`fig_lstm``` to no label shows "Fig. “lstm”", with a warning
located at the reference (of the type Sphinx's own warning has, so suppressions apply)."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from polybook.source.readable import unresolved

logger = logging.getLogger(__name__)

WARNINGS = {  # Sphinx's messages for a reference to nothing
    "numref": "undefined label: {target!r}",
    "ref": "undefined label: {target!r}",
    "eq": "equation not found: {target}",
}


def readable(target: str, reftype: str) -> str:
    """What a reference to ``target`` reads as when it resolves to nothing."""
    return unresolved(target, "eqref" if reftype == "eq" else reftype)


def on_missing_reference(
    app: Sphinx, env: Any, node: nodes.Element, contnode: nodes.Element
) -> nodes.Node | None:
    reftype = str(node.get("reftype", ""))
    if reftype not in WARNINGS or node.get("refdomain") not in ("std", "math"):
        return None
    target = str(node.get("reftarget", ""))
    shown = contnode.astext() if contnode is not None else target
    explicit = node.get("refexplicit") and shown and shown != target
    text = shown if explicit else readable(target, reftype)
    message = WARNINGS[reftype].format(target=target)
    logger.warning(message, location=node, type="ref", subtype=reftype)
    return nodes.inline(text, text, classes=["pb-unresolved"])


def setup(app: Sphinx) -> None:
    app.connect("missing-reference", on_missing_reference)
