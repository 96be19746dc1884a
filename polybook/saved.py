"""The ``#@save`` marks of code cells: which statements go into the library.

``#@save`` at the end of a top-level statement's first line (a decorator's, for a decorated
def) saves that statement; ``#@save`` alone on its line saves the statement below it, as
d2lbook does (see :func:`_run_end`). IPython lines (``%magic``, ``!command``) are left out.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from nbformat import NotebookNode

from polybook.diagnostics import Location, PolybookError
from polybook.meta import cell_meta

SAVE = re.compile(r"^#\s*@save\s*$")  # d2lbook also reads `# @save`
SAVE_SUFFIX = re.compile(r"\s*#\s*@save\s*$")
MAGIC = re.compile(r"^\s*[%!]")


@dataclass(frozen=True)
class SavedBlock:
    """One saved statement (or cell) with the page line of each of its lines."""

    path: str
    lines: tuple[int, ...]  # lines[k] is the page line of the code's line k + 1
    code: str
    notebook: int  # position of its notebook in book order

    @cached_property
    def tree(self) -> ast.Module:
        """The block's syntax tree (raises SyntaxError where it does not parse)."""
        return ast.parse(self.code)

    @property
    def line(self) -> int:
        return self.lines[0] if self.lines else 0

    def source_line(self, code_line: int) -> int:
        """The page line of the block's 1-based line ``code_line``."""
        if 0 < code_line <= len(self.lines):
            return self.lines[code_line - 1]
        return self.lines[-1] if self.lines else 0


def _save_lines(source: str) -> set[int]:
    """1-based lines of ``source`` whose comment is exactly ``#@save`` (or ``# @save``)."""
    found: set[int] = set()
    if "@save" not in source:
        return found
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and SAVE.match(tok.string.strip()):
                found.add(tok.start[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = {n for n, t in enumerate(source.split("\n"), 1) if SAVE_SUFFIX.search(t)}
    return found


def _block(path: str, numbered: Sequence[tuple[int, str]], notebook: int) -> SavedBlock:
    """A block of ``(page line, text)`` pairs: marks and IPython lines removed, edges trimmed."""
    kept = [(n, SAVE_SUFFIX.sub("", t)) for n, t in numbered if not MAGIC.match(t)]
    while kept and not kept[0][1].strip():
        kept.pop(0)
    while kept and not kept[-1][1].strip():
        kept.pop()
    return SavedBlock(path, tuple(n for n, _ in kept), "\n".join(t for _, t in kept), notebook)


def statement_start(node: ast.stmt) -> int:
    """First line of a statement, its decorators included."""
    return min([node.lineno, *(int(d.lineno) for d in getattr(node, "decorator_list", []))])


def _header_end(node: ast.stmt) -> int:
    """Last line of a statement's header (the whole statement when it has no body)."""
    body = getattr(node, "body", None)
    if (
        isinstance(body, list)
        and body
        and isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
    ):
        return max(node.lineno, int(body[0].lineno) - 1)
    return node.end_lineno or node.lineno


def _run_end(spans: list[tuple[int, int]], first: int, lines: list[str]) -> int:
    """Index of the last statement a ``#@save`` line before statement ``first`` saves.

    As d2lbook does: the statement, and while it is one line, the statements right below it
    up to a blank line (``import a`` / ``import b``; ``X = 1`` / ``def f(): ...``).
    """
    last = first
    while last + 1 < len(spans) and spans[last][0] == spans[last][1]:
        gap = lines[spans[last][1] : spans[last + 1][0] - 1]
        if any(not t.strip() for t in gap):
            break
        last += 1
    return last


def cell_blocks(cell: NotebookNode, path: str, notebook: int, framework: str) -> list[SavedBlock]:
    """The saved blocks of one code cell."""
    source: str = cell.source
    meta = cell_meta(cell)
    marks = _save_lines(source)
    if not marks:
        return []
    lines = source.split("\n")
    numbered = [(meta.source_line(k), t) for k, t in enumerate(lines, start=1)]

    def where(line: int) -> Location:
        return Location(path, meta.source_line(line), framework)

    blank_magics = "\n".join("" if MAGIC.match(t) else t for t in lines)
    try:
        tree = ast.parse(blank_magics)
    except SyntaxError as exc:
        raise PolybookError(
            where(exc.lineno or min(marks)),
            f"cannot parse a cell with #@save: {exc.msg}",
            "library.syntax",
        ) from exc
    spans = [(statement_start(node), node.end_lineno or node.lineno) for node in tree.body]
    groups: list[tuple[int, int]] = []  # (first, last) statement indices
    for mark in sorted(marks):
        alone = bool(SAVE.match(lines[mark - 1].strip()))
        inside = [i for i, (a, b) in enumerate(spans) if a <= mark <= b]
        if inside and not alone and mark <= _header_end(tree.body[inside[0]]):
            groups.append((inside[0], inside[0]))
        elif alone and not inside:
            after = [i for i, (a, _) in enumerate(spans) if a > mark]
            if not after:
                raise PolybookError(
                    where(mark), "#@save is followed by no statement", "library.save"
                )
            groups.append((after[0], _run_end(spans, after[0], lines)))
        else:
            message = "#@save must mark a top-level statement"
            raise PolybookError(where(mark), message, "library.save")
    merged: list[tuple[int, int]] = []
    for first, last in sorted(groups):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return [
        _block(path, numbered[spans[first][0] - 1 : spans[last][1]], notebook)
        for first, last in merged
    ]


def extract_blocks(
    notebooks: Sequence[tuple[str, NotebookNode]], framework: str
) -> list[SavedBlock]:
    """All saved blocks of ``framework``'s notebooks, given in book order."""
    blocks: list[SavedBlock] = []
    for index, (path, nb) in enumerate(notebooks):
        for cell in nb.cells:
            if cell.cell_type == "code":
                blocks.extend(cell_blocks(cell, path, index, framework))
    return blocks
