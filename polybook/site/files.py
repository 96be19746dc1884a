"""Names of the files the site stage writes for Sphinx, shared with the Sphinx extension."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"  # the tool's own CSS and JavaScript
CELLS_SUFFIX = ".pbcells.json"  # a page's cell data, read by the {pb-cells} directive
MAP_SUFFIX = ".pbmap.json"  # a generated page's line -> source line map
OUTPUT_DIR = "_pb_outputs"  # images from cell outputs, stored once by content
