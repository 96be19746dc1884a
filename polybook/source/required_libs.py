"""d2lbook's page set-up cell: ``%load_ext d2lbook.tab``, and the libraries a page needs.

d2l-en's pages open with a cell that d2lbook reads and drops from every notebook::

    %load_ext d2lbook.tab
    tab.interact_select(["pytorch"])
    #required_libs("setuptools==66", "wheel==0.38.4", "gym==0.21.0")

Its ``#required_libs(...)`` names what the page needs beyond the book's library, in the
order they install (``gym==0.21.0`` builds with the ``setuptools`` and ``wheel`` before it):
d2lbook's Colab notebooks ``pip install`` each. As d2lbook reads it, the line counts in that
cell alone (elsewhere it is a comment, kept as written, and warned of), and belongs to the
notebooks the cell belongs to: a cell without ``%%tab`` is the book's first framework's.
Each library is a string in the call, a requirement pip reads: anything else is an error at
its line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.source.model import CodeCell, Document

SETUP_CELL = "%load_ext d2lbook.tab"  # what makes a cell d2lbook's set-up cell
REQUIRED_LIBS = re.compile(r"# *required_libs\((.*?)\)")  # d2lbook's own pattern
MENTION = re.compile(r"#\s*required_libs\b")
# What the set-up cell holds that d2lbook reads: the rest is dropped with the cell.
SETUP_LINE = re.compile(
    r"^\s*(?:%load_ext\s+d2lbook\.tab|tab\.interact_select\(.*\)|# *required_libs\(.*\))\s*$"
)
USAGE = 'expected #required_libs("name==version", ...): strings, each a pip requirement'


@dataclass(frozen=True)
class RequiredLibs:
    """The libraries of one ``#required_libs(...)`` line, in its order, and its page line."""

    libraries: tuple[str, ...]
    line: int


def is_setup_cell(cell: CodeCell) -> bool:
    return SETUP_CELL in cell.source


def required_libs(cell: CodeCell, path: str) -> RequiredLibs | None:
    """What the set-up ``cell`` requires (its first ``#required_libs`` line, as d2lbook
    reads it); None when it names nothing."""
    for number, text in enumerate(cell.source.split("\n"), start=cell.line):
        found = REQUIRED_LIBS.search(text)
        if found:
            libraries = _libraries(found.group(1), Location(path, number))
            return RequiredLibs(libraries, number) if libraries else None
    return None


def _libraries(arguments: str, where: Location) -> tuple[str, ...]:
    try:
        call = ast.parse(f"f({arguments})", mode="eval").body
    except SyntaxError:
        raise PolybookError(where, USAGE, "split.required_libs") from None
    args = call.args if isinstance(call, ast.Call) and not call.keywords else [call]
    values = [a.value for a in args if isinstance(a, ast.Constant)]
    if len(values) != len(args) or not all(isinstance(v, str) for v in values):
        raise PolybookError(where, USAGE, "split.required_libs")
    for value in values:
        try:
            Requirement(str(value))
        except InvalidRequirement as exc:
            message = f"#required_libs: {value!r} is not a requirement pip reads ({exc})"
            raise PolybookError(where, message, "split.required_libs") from None
    return tuple(str(v).strip() for v in values)


def check_setup_cell(cell: CodeCell, path: str, reporter: Reporter) -> None:
    """Warn of the code a set-up ``cell`` holds besides d2lbook's lines: d2lbook drops it
    with the cell, and so does polybook."""
    for number, text in enumerate(cell.source.split("\n"), start=cell.line):
        if text.strip() and not SETUP_LINE.match(text):
            message = (
                f"`{text.strip()}` is in the cell of `{SETUP_CELL}`, which no notebook shows "
                "or runs (as in d2lbook): move it to a cell of its own"
            )
            reporter.warn(Location(path, number), message, "split.setup_cell")


def check_stray_mention(cell: CodeCell, path: str, reporter: Reporter) -> None:
    """Warn of a ``#required_libs`` line outside the set-up cell: d2lbook reads it there
    alone, so here it is a comment."""
    if "required_libs" not in cell.source:
        return
    for number, text in enumerate(cell.source.split("\n"), start=cell.line):
        if MENTION.search(text):
            message = (
                f"#required_libs is read in the cell of `{SETUP_CELL}` alone (as d2lbook "
                "reads it): here it is a comment, and nothing is installed"
            )
            reporter.warn(Location(path, number), message, "split.required_libs")


def check_set_up_cells(documents: Iterable[Document], reporter: Reporter) -> None:
    """What a split of ``documents`` reports of their set-up cells and ``#required_libs``
    lines, without splitting them (``polybook check``)."""
    for doc in documents:
        for block in doc.blocks:
            if not isinstance(block, CodeCell):
                continue
            if not is_setup_cell(block):
                check_stray_mention(block, doc.path, reporter)
                continue
            check_setup_cell(block, doc.path, reporter)
            try:
                required_libs(block, doc.path)
            except PolybookError as err:
                reporter.error(err)
