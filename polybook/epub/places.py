"""The epub's places in the build folder, asked of the generic
:class:`~polybook.layout.Layout` (``output_dir``, ``book_file``): its name is the epub's own."""

from __future__ import annotations

from pathlib import Path

from polybook.layout import Layout

NAME = "epub"  # the output, and its folder: _build/epub/<book>-<framework>.epub


def epub_file(layout: Layout, framework: str) -> Path:
    """The finished epub of ``framework``."""
    return layout.book_file(NAME, framework, ".epub")


def epub_work(layout: Layout, framework: str) -> Path:
    """One framework's Sphinx sources, doctrees and epub build."""
    return layout.build / "epub_work" / framework
