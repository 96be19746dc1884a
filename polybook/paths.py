"""Where polybook's own files are: the package, its source checkout and shipped assets."""

from __future__ import annotations

from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
SOURCE_ROOT = PACKAGE_ROOT.parent  # the checkout: requirements/, .envs/
