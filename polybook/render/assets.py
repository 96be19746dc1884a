"""Browser assets from npm (installed by ``polybook env assets``:
:mod:`polybook.environments.assets`) that outputs copy beside their pages, so that they work
offline from ``file://``: MathJax for math, reveal.js for slide decks."""

from __future__ import annotations

from pathlib import Path

from polybook.fsutil import sync_tree, write_atomic
from polybook.memo import FileMemo
from polybook.paths import node_modules

MATHJAX_FONTS = Path("output") / "chtml" / "fonts" / "woff-v2"
REVEAL_FILES = ("reveal.js", "reveal.css", "theme/white.css")
INSTALL = "is not installed: `polybook env assets` installs it"
# Each copy known to hold its source, while neither file changed: a rebuild reads neither.
_COPIED: FileMemo[bool] = FileMemo(64)


def mathjax() -> Path:
    """MathJax's browser build, where ``polybook env assets`` installs it."""
    return node_modules() / "mathjax" / "es5"


def reveal() -> Path:
    """reveal.js's browser build, where ``polybook env assets`` installs it."""
    return node_modules() / "reveal.js" / "dist"


def write_mathjax(static: Path) -> bool:
    """MathJax in ``static/mathjax`` (its script and fonts); True if anything changed."""
    folder, installed = static / "mathjax", mathjax()
    changed = _copy(installed / "tex-chtml.js", folder / "tex-chtml.js")
    return sync_tree(installed / MATHJAX_FONTS, folder / MATHJAX_FONTS) or changed


def _copy(source: Path, target: Path) -> bool:
    """``source``'s bytes in ``target``; True if they were not there."""
    if _COPIED.known([source, target]):
        return False
    changed = write_atomic(target, source.read_bytes())
    _COPIED.put([source, target], True)
    return changed


def write_reveal(static: Path) -> bool:
    """reveal.js's script, style and white theme in ``static/reveal``; True if changed."""
    changed = False
    for name in REVEAL_FILES:
        changed |= write_atomic(static / "reveal" / name, (reveal() / name).read_bytes())
    return changed
