"""What autodoc needs to document the book's own library in ``eval_rst`` blocks.

An API page written for d2lbook says ``.. currentmodule:: d2l.torch`` and ``.. autoclass::
Module``. The Sphinx process has polybook's packages, not the frameworks (each lives in an
environment of its own), and importing the library would import them: the library modules
are read from their source instead (:mod:`polybook.render.library_stubs`), the package's
``__init__.py`` too, so nothing of them runs. The book's folder goes on the import path only
when the build executes the book's code anyway; with nothing executed (``eval_notebook``
off, ``--executor none``: a CI's preview of an untrusted pull request) no module of the
book can be imported. What the libraries import is mocked.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from polybook.config import Book
from polybook.library.model import SavedBlock


def library_packages(book: Book) -> set[str]:
    """The top-level names the book's libraries are imported by (``d2l``)."""
    names = set()
    for fw in book.tabs:
        first = PurePosixPath(book.library_for(fw).lib_file).parts[0]
        names.add(first.removesuffix(".py"))
    return names


def library_files(book: Book) -> dict[str, str]:
    """Each library module's import name (``d2l.torch``) -> its file, and each package
    above it (``d2l``) -> its ``__init__.py``."""
    files = {}
    for fw in book.tabs:
        lib_file = PurePosixPath(book.library_for(fw).lib_file)
        parts = lib_file.with_suffix("").parts
        files[".".join(parts)] = str(book.root / lib_file)
        for end in range(1, len(parts)):
            files[".".join(parts[:end])] = str(book.root.joinpath(*parts[:end], "__init__.py"))
    return files


def autodoc_settings(book: Book, libraries: Mapping[str, Sequence[SavedBlock]]) -> dict[str, Any]:
    """``pb_import_path`` and ``pb_library_files`` (applied by the extension), and
    ``autodoc_mock_imports``: every module the libraries import but the standard library's."""
    own = library_packages(book)
    imported = {
        module
        for blocks in libraries.values()
        for block in blocks
        for statement in block.statements
        for module in statement.modules
    }
    mocked = sorted(m for m in imported - own if m not in sys.stdlib_module_names)
    return {
        "pb_import_path": [str(book.root)] if book.runs_book_code else [],
        "pb_library_files": library_files(book),
        "autodoc_mock_imports": mocked,
    }
