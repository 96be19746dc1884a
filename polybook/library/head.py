"""A library file is the author's head and the generated body: whatever a ``lib_file``
holds above d2lbook's banner (``#################   WARNING   ################``) or above
polybook's own first line is the author's, kept byte for byte (CRLF or CR line endings,
trailing spaces, a BOM) at the top of every library made from it (the written
``d2l/<fw>.py``, the snapshot the notebooks import, and so the wheel and the students'
notebooks' library). The banner stays, so that d2lbook still finds it; on the file's last
line, it gets a line ending of its own.

A file with neither, which holds code that no page saves, is the author's too: a located
error, the file left as it is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from polybook.diagnostics import Location, PolybookError
from polybook.library.compose import HEADER, library_text
from polybook.library.model import SavedBlock

BOM = "\ufeff"  # the mark some editors put first in a UTF-8 file: kept, not read
BANNER = "#################   WARNING   ################"
MARKER = HEADER.partition("{")[0]  # polybook's first line, up to the framework's name


@dataclass(frozen=True)
class LibraryFile:
    """A library file's text in its parts: ``head`` the author's, ``banner`` d2lbook's (as
    found, with the comment lines under it), ``body`` the generated code; ``marked`` where a
    banner or polybook's first line was found."""

    head: str
    banner: str
    body: str
    marked: bool


def split_library(text: str) -> LibraryFile:
    """``text`` in its parts (see :class:`LibraryFile`)."""
    lines = text.splitlines(keepends=True)
    for k, line in enumerate(lines):
        if line.removeprefix(BOM).strip() == BANNER:
            end = k + 1
            while end < len(lines) and lines[end].startswith("#"):
                end += 1
            if end < len(lines) and not lines[end].strip():
                end += 1
            head, banner, body = lines[:k], lines[k:end], lines[end:]
            return LibraryFile("".join(head), "".join(banner), "".join(body), True)
        if line.removeprefix(BOM).startswith(MARKER):
            return LibraryFile("".join(lines[:k]), "", "".join(lines[k:]), True)
    return LibraryFile("", "", text, False)


def read_library(path: Path) -> LibraryFile:
    """The parts of the library file at ``path`` (none where it is missing or unreadable), as
    its bytes hold them: its line endings are not translated."""
    try:
        return split_library(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return LibraryFile("", "", "", False)


def _saved_statements(blocks: Sequence[SavedBlock]) -> tuple[set[str], set[str]]:
    """The top-level statements the pages save (as syntax trees), and the names they define."""
    trees: set[str] = set()
    names: set[str] = set()
    for block in blocks:
        try:
            body = ast.parse(block.code).body
        except SyntaxError:
            continue
        for node in body:
            trees.add(ast.dump(node))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
    return trees, names


def _unsaved_line(text: str, blocks: Sequence[SavedBlock]) -> tuple[int, str] | None:
    """The first line of ``text`` holding code no page saves, and that code's first line
    (lines as Python counts them: a CR, a CRLF or an LF ends one)."""
    lines = re.split(r"\r\n?|\n", text)
    try:
        body = ast.parse(text).body
    except SyntaxError as err:
        line = err.lineno or 1
        return line, lines[line - 1].strip() if line <= len(lines) else ""
    trees, names = _saved_statements(blocks)
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if ast.dump(node) in trees:
            continue
        definition = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        if isinstance(node, definition) and node.name in names:
            continue  # the saved one, its methods written in
        return node.lineno, lines[node.lineno - 1].strip()
    return None


def check_library_file(path: Path, shown: str, blocks: Sequence[SavedBlock]) -> None:
    """Raise where the file at ``path`` (``shown``: its path in messages) has no banner and
    holds code that no page saves: writing the library would lose what the author wrote."""
    part = read_library(path)
    if part.marked or not part.body.strip():
        return
    found = _unsaved_line(part.body, blocks)
    if found is None:
        return
    line, code = found
    message = (
        f"`{code}` is in no page's #@save code, and no `{BANNER}` line sets it apart from "
        "the generated library: put that line below the lines written by hand (they are "
        "kept above it), or save the code on a page; the file is left as it is"
    )
    raise PolybookError(Location(shown, line), message, "library.head")


def library_module(path: Path, blocks: Sequence[SavedBlock], display: str) -> str:
    """The library of ``blocks`` as it is written to ``path`` or imported from a snapshot of
    it: the author's head and d2lbook's banner from the file at ``path``, then the generated
    module."""
    part = read_library(path)
    banner = part.banner
    if banner and not banner.endswith(("\n", "\r")):  # the file's last line
        banner += _line_end(part.head + banner)
    return part.head + banner + library_text(blocks, display)


def _line_end(text: str) -> str:
    """The line ending ``text`` uses (its first), ``\n`` where it has none."""
    found = re.search(r"\r\n?|\n", text)
    return found.group() if found else "\n"
