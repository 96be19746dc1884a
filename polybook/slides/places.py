"""The decks' places in the build folder, asked of the generic
:class:`~polybook.layout.Layout` (``output_dir``): its name is the slides' own."""

from __future__ import annotations

from pathlib import Path

from polybook.layout import Layout

NAME = "slides"  # the output, and its folder: _build/slides/<framework>/<page>.ipynb|.html


def slides_dir(layout: Layout) -> Path:
    """The decks: ``<framework>/<page>.ipynb`` (RISE) and ``.html`` (reveal.js), with the
    browser assets they share in ``_static/``."""
    return layout.output_dir(NAME)


def deck(layout: Layout, framework: str, page: str, suffix: str) -> Path:
    """One section's deck of ``framework``: ``.ipynb`` or ``.html``."""
    return slides_dir(layout) / framework / (page.removesuffix(".md") + suffix)


def built_decks(layout: Layout, tabs: tuple[str, ...]) -> dict[str, list[str]]:
    """Per framework of ``tabs``, the pages (docnames) that have a reveal.js deck."""
    found = {}
    for fw in tabs:
        folder = slides_dir(layout) / fw
        pages = folder.rglob("*.html") if folder.is_dir() else ()
        found[fw] = sorted(p.relative_to(folder).with_suffix("").as_posix() for p in pages)
    return {fw: pages for fw, pages in found.items() if pages}
