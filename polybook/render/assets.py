"""Browser assets from npm (``requirements/node``, pinned by its lock file) that outputs copy
beside their pages, so that they work offline from ``file://``: MathJax for math, reveal.js
for slide decks."""

from __future__ import annotations

from pathlib import Path

from polybook.fsutil import write_atomic
from polybook.layout import NODE_MODULES
from polybook.render.sources import sync_tree

MATHJAX = NODE_MODULES / "mathjax" / "es5"
REVEAL = NODE_MODULES / "reveal.js" / "dist"
MATHJAX_FONTS = Path("output") / "chtml" / "fonts" / "woff-v2"
REVEAL_FILES = ("reveal.js", "reveal.css", "theme/white.css")
INSTALL = "is not installed: run `make setup`"


def write_mathjax(static: Path) -> bool:
    """MathJax in ``static/mathjax`` (its script and fonts); True if anything changed."""
    folder = static / "mathjax"
    changed = write_atomic(folder / "tex-chtml.js", (MATHJAX / "tex-chtml.js").read_bytes())
    return sync_tree(MATHJAX / MATHJAX_FONTS, folder / MATHJAX_FONTS) or changed


def write_reveal(static: Path) -> bool:
    """reveal.js's script, style and white theme in ``static/reveal``; True if changed."""
    changed = False
    for name in REVEAL_FILES:
        changed |= write_atomic(static / "reveal" / name, (REVEAL / name).read_bytes())
    return changed
