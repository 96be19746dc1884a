"""What autodoc needs to document the book's own library in ``eval_rst`` blocks.

An API page written for d2lbook says ``.. currentmodule:: d2l.torch`` and ``.. autoclass::
Module``: autodoc imports the library in the Sphinx process. That process has polybook's
packages, not the frameworks (each lives in an environment of its own), so what the
libraries import and this Python cannot find is mocked (Sphinx's ``autodoc_mock_imports``),
and the book's folder, which holds the library package, goes on the import path.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from importlib.machinery import PathFinder
from pathlib import PurePosixPath
from typing import Any

from polybook.config import BookConfig
from polybook.library.model import SavedBlock


def library_packages(config: BookConfig) -> set[str]:
    """The top-level names the book's libraries are imported by (``d2l``)."""
    names = set()
    for fw in config.tabs:
        first = PurePosixPath(config.library_for(fw).lib_file).parts[0]
        names.add(first.removesuffix(".py"))
    return names


def autodoc_settings(
    config: BookConfig, libraries: Mapping[str, Sequence[SavedBlock]]
) -> dict[str, Any]:
    """``pb_import_path`` (applied by the extension) and ``autodoc_mock_imports``."""
    path = [str(config.root)]
    own = library_packages(config)
    imported = {
        module
        for blocks in libraries.values()
        for block in blocks
        for statement in block.statements
        for module in statement.modules
    }
    search = [*path, *sys.path]
    missing = sorted(m for m in imported - own if not _findable(m, search))
    return {"pb_import_path": path, "autodoc_mock_imports": missing}


def _findable(module: str, search: list[str]) -> bool:
    """Whether ``module`` imports here, without importing it."""
    return module in sys.stdlib_module_names or PathFinder.find_spec(module, search) is not None
