"""A deck as the notebook d2lbook's readers open as slides: cells marked for RISE (Jupyter's
slideshow), with the ``[slides]`` corners as its overlay."""

from __future__ import annotations

import copy
import html

from nbformat import NotebookNode

from polybook.nb import new_code_cell, new_markdown_cell, new_notebook, validate
from polybook.slides.deck import Deck

# Beside each folder of decks: RISE reads the folder's rise.css.
RISE_CSS = """\
/* The slides' corners and their text size, for RISE. */
.pb-corner { position: absolute; top: 0.8em; font-size: 1.6em; }
.pb-top-left { left: 4%; }
.pb-top-right { right: 4%; }
div.text_cell_render.rendered_html { padding: 0.3em 0.1em; }
div.code_cell { font-size: 115%; }
"""


def overlay(top_left: str, top_right: str) -> str:
    """The corners' HTML, as the author wrote it (an empty corner is left out)."""
    corners = (("pb-top-left", top_left), ("pb-top-right", top_right))
    return "".join(
        f'<div class="pb-corner {html.escape(name)}">{text}</div>' for name, text in corners if text
    )


def rise_notebook(
    deck: Deck, kernelspec: dict[str, str], top_left: str = "", top_right: str = ""
) -> NotebookNode:
    """The deck as a notebook that RISE shows as slides (it starts as one when opened)."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = kernelspec
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["celltoolbar"] = "Slideshow"
    rise: dict[str, bool | str] = {"autolaunch": True, "enable_chalkboard": True, "scroll": True}
    if top_left or top_right:
        rise["overlay"] = overlay(top_left, top_right)
    nb.metadata["rise"] = rise
    for number, cell in enumerate(deck.cells):
        make = new_markdown_cell if cell.kind == "markdown" else new_code_cell
        node = make(cell.source, f"slide-{number}")
        kind = "slide" if cell.new_slide else "fragment" if cell.fragment else "-"
        node.metadata["slideshow"] = {"slide_type": kind}
        if cell.kind == "code":
            node.outputs = copy.deepcopy(cell.outputs)
        nb.cells.append(node)
    validate(nb)
    return nb
