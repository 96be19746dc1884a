"""The students' notebooks' place in the build folder, asked of the generic
:class:`~polybook.layout.Layout` (``output_dir``): its name is the notebooks' own."""

from __future__ import annotations

from pathlib import Path

from polybook.layout import Layout

NAME = "notebooks"  # the output, and its folder: _build/notebooks/<framework>/…


def notebooks_dir(layout: Layout) -> Path:
    return layout.output_dir(NAME)
