"""Names of the files an output writes into Sphinx's sources, shared with the Sphinx
extension (which imports this module: it stays light)."""

from __future__ import annotations

CELLS_SUFFIX = ".pbcells.json"  # a page's cell data, read by the {pb-cells} directive
MAP_SUFFIX = ".pbmap.json"  # a generated page's line -> source line map
OUTPUT_DIR = "_pb_outputs"  # images from cell outputs, stored once by content
CITE_STYLE = "author_year_round"  # registered by polybook.render.sphinx.cite
INDEX_FILE = "_pb_api.json"  # the library's API index, in Sphinx's sources
BIBFILE = "_pb_references.bib"  # the book's BibTeX file, in Sphinx's sources
API_FOLDER = "api"  # the generated API pages: api/<framework>


def anchor(framework: str, name: str) -> str:
    """The id of the code that saves ``name`` in ``framework``'s library, on its page."""
    return f"d2l-{framework}-{name}"
