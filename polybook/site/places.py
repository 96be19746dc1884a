"""The site's own places in the build folder, beside those the generic
:class:`~polybook.layout.Layout` names (``html``, which ``serve`` and ``linkcheck`` read too,
and ``site_*``)."""

from __future__ import annotations

from pathlib import Path

from polybook.layout import Layout

NAME = "html"  # the output, its folder (_build/html) and its Sphinx builder


def sphinx_inputs(layout: Layout) -> Path:
    """The files outside Sphinx's sources that each page read in the site's last Sphinx run
    (see ``polybook.render.page_inputs``)."""
    return layout.sphinx_file(NAME, ".inputs.json")
