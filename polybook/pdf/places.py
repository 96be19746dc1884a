"""The PDF's places in the build folder, asked of the generic :class:`~polybook.layout.Layout`
(``output_dir``, ``book_file``): its name is the PDF's own."""

from __future__ import annotations

from pathlib import Path

from polybook.layout import Layout

NAME = "pdf"  # the output, and its folder: _build/pdf/<book>-<framework>.pdf


def pdf_file(layout: Layout, framework: str) -> Path:
    """The finished PDF of ``framework``."""
    return layout.book_file(NAME, framework, ".pdf")


def latex_dir(layout: Layout, framework: str) -> Path:
    """One framework's Sphinx sources, doctrees and LaTeX run."""
    return layout.build / "latex" / framework


def sphinx_inputs(layout: Layout, framework: str) -> Path:
    """The files outside Sphinx's sources that each page of ``framework``'s PDF read in its
    last run (see ``polybook.render.page_inputs``)."""
    return latex_dir(layout, framework) / "sphinx.inputs.json"
