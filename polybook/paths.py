"""Where polybook's own files are: the package, its source checkout and shipped assets."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
SOURCE_ROOT = PACKAGE_ROOT.parent  # the checkout: requirements/, .envs/


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
