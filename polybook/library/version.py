"""``[library] version_file``: the release (``[project] release``) written where d2lbook writes
it, the file's ``__version__ = "…"`` line, as the library is written. Only the quoted value
changes: every other byte of the file (its other lines, the line's quotes, a comment after
it, the line endings) is the author's and stays; the file is written whole, through a
temporary file, and only when the value differs. A library file may hold the line in its
head (:mod:`polybook.library.head`), which the library's writes keep."""

from __future__ import annotations

import re

from polybook.config import Book, key_location
from polybook.diagnostics import Reporter
from polybook.fsutil import write_atomic
from polybook.library.head import split_library

# A top-level assignment of a string literal to __version__; group 2 is the value.
VERSION = re.compile(rb"""^(__version__\s*(?::\s*str\s*)?=\s*(['"]))([^'"\\\r\n]*)\2""", re.M)


def with_release(text: bytes, release: str) -> bytes | None:
    """``text`` with its first ``__version__`` string set to ``release``; None when it has no
    such line. In a library file (a ``lib_file`` may be the version file) only the author's
    head is searched: the generated part is rewritten from the pages."""
    try:
        part = split_library(text.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    end = len(part.head.encode("utf-8")) if part.marked else len(text)
    found = VERSION.search(text, 0, end)
    if found is None:
        return None
    value = release.encode("utf-8")
    return text[: found.start(3)] + value + text[found.end(3) :]


def write_release(info: Book, release: str, version_file: str, reporter: Reporter) -> bool:
    """Set the ``__version__`` of the book's ``version_file`` to ``release``; True if the
    file changed. A file that cannot hold it is a warning at the key's line (a missing one
    is reported when the config is read)."""
    if not release or not version_file:
        return False
    path = info.root / version_file
    if not info.confinement.holds(path) or not path.is_file():
        return False  # reported at the key's line: outside the book, or missing
    where = key_location(info.root, "library", "version_file")
    if release != release.strip() or any(c in release for c in "'\"\\\r\n"):
        message = f"[project] release {release!r} cannot be written as a Python string"
        reporter.warn(where, f"[library] version_file: {message}", "config")
        return False
    text = path.read_bytes()
    updated = with_release(text, release)
    if updated is None:
        message = (
            f'[library] version_file: {version_file} has no `__version__ = "..."` line:'
            " the release is not written"
        )
        reporter.warn(where, message, "config")
        return False
    return write_atomic(path, updated)
