"""Names of the files the site stage writes for Sphinx, shared with the Sphinx extension."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the Sphinx extension imports this module: it stays light
    from polybook.config import BookConfig

STATIC = Path(__file__).resolve().parent / "static"  # the tool's own CSS and JavaScript
CELLS_SUFFIX = ".pbcells.json"  # a page's cell data, read by the {pb-cells} directive
MAP_SUFFIX = ".pbmap.json"  # a generated page's line -> source line map
OUTPUT_DIR = "_pb_outputs"  # images from cell outputs, stored once by content
CITE_STYLE = "author_year_round"  # registered by polybook.site.cite
INDEX_FILE = "_pb_api.json"  # the library's API index, in the site's sources
API_FOLDER = "api"  # the generated API pages: api/<framework>


def anchor(framework: str, name: str) -> str:
    """The id of the code that saves ``name`` in ``framework``'s library, on its page."""
    return f"d2l-{framework}-{name}"


def site_inputs(config: BookConfig) -> list[Path]:
    """Files the site is made from beside the pages: the book's static files, its BibTeX
    file, favicon and logo."""
    static = config.root / "static"
    named = [Path(p) for p in (config.bibfile, config.favicon, config.html_logo) if p]
    return [*sorted(p for p in static.rglob("*") if p.is_file()), *named]
