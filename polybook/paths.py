"""Where polybook's own files are: the package and its data, the folder it is imported from,
its source checkout when it runs from one, and the user's folders it keeps assets in."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
# The folder ``import polybook`` finds it in: a checkout, or an environment's site-packages.
IMPORT_ROOT = PACKAGE_ROOT.parent
# Package data: the shipped frameworks' pinned sets (cpu/, cuda/) and npm's lock (node/).
REQUIREMENTS = PACKAGE_ROOT / "requirements"
NODE_REQUIREMENTS = REQUIREMENTS / "node"


def _checkout() -> Path | None:
    """polybook's source checkout, when it runs from one (an editable install)."""
    pyproject = IMPORT_ROOT / "pyproject.toml"
    try:
        named = 'name = "polybook"' in pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    return IMPORT_ROOT if named and (IMPORT_ROOT / "Makefile").is_file() else None


CHECKOUT = _checkout()


def user_data() -> Path:
    """polybook's folder of the user's data: ``$XDG_DATA_HOME/polybook``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "polybook"


def assets_dir() -> Path:
    """Where the browser assets from npm are installed (``polybook env assets``): the
    checkout's ``.envs/node``, else the user's data folder."""
    return CHECKOUT / ".envs" / "node" if CHECKOUT else user_data() / "node"


def node_modules() -> Path:
    """The installed npm packages (MathJax)."""
    return assets_dir() / "node_modules"


def running_python() -> str:
    """This Python's path, the same however it was started: ``python3`` and ``python`` in one
    venv are one interpreter (a path that changed by name alone rewrote the kernelspecs)."""
    started = Path(sys.executable)
    plain = started.with_name("python")
    try:
        if plain != started and plain.resolve() == started.resolve():
            return str(plain)
    except OSError:
        pass
    return str(started)
