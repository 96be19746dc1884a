"""Pandoc's fenced divs in a page's prose, as MyST reads them: ``::: {.d2l-note}`` and the
callouts become admonitions, any other div a container of its classes; and the block
attributes polybook gives a heading that takes no number."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin

from polybook.source.pandoc_attrs import attributes

_divs = MarkdownIt("commonmark").disable("inline").use(colon_fence_plugin)
ADMONITIONS = {"d2l-note": "note", "callout-note": "note", "callout-tip": "tip"}
ADMONITIONS |= {"callout-important": "important", "callout-warning": "warning"}
ADMONITIONS |= {"callout-caution": "caution"}
# Before a `{.unnumbered}` heading: its section's class (see render/sphinx/unnumbered.py).
UNNUMBERED_CLASS = "pb-unnumbered"
UNNUMBERED_ATTRS = f"{{.{UNNUMBERED_CLASS}}}"


def div_openers(text: str) -> dict[int, list[str]]:
    """The lines (0-based in ``text``) that open a Pandoc div, each with its MyST opener."""
    found: dict[int, list[str]] = {}
    for token in _divs.parse(text if text.endswith("\n") else text + "\n"):
        spec = token.info.strip()
        if token.type == "colon_fence" and token.map and spec.startswith("{."):
            found[token.map[0]] = _div_opener(token.markup, spec[1:-1])
    return found


def _div_opener(fence: str, spec: str) -> list[str]:
    """``::: {.d2l-note}`` as MyST reads it: ``:::{note}``, a titled ``:::{admonition}``, or
    a ``:::{container}`` of its classes."""
    classes, values = attributes(spec)
    kind = next((ADMONITIONS[c] for c in classes if c in ADMONITIONS), "")
    title = values.get("title", "")
    if kind and title:
        return [f"{fence}{{admonition}} {title}", f":class: {kind}"]
    if kind:
        return [f"{fence}{{{kind}}}"]
    return [f"{fence}{{container}} {' '.join(classes)}"]
