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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.library.model import SavedBlock
from polybook.library.syntax import first_lines, header_end, parse_code, statement_start
from polybook.memo import HeldMemo
from polybook.meta import cell_meta

if TYPE_CHECKING:
    from nbformat import NotebookNode

SAVE = re.compile(r"^#\s*@save\s*$")  # d2lbook also reads `# @save`
SAVE_SUFFIX = re.compile(r"\s*#\s*@save\s*$")
MAGIC = re.compile(r"^\s*[%!]")


def _tokenized_marks(source: str) -> set[int]:
    """1-based lines of ``source`` whose comment is exactly ``#@save`` (or ``# @save``)."""
    found: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and SAVE.match(tok.string.strip()):
                found.add(tok.start[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = {n for n, t in enumerate(source.split("\n"), 1) if SAVE_SUFFIX.search(t)}
    return found


def _save_lines(source: str, lines: list[str], tree: ast.Module) -> set[int]:
    """The marks of a cell that parses (``tree``, its magics blanked), as tokenizing finds
    them; tokenized only where the lines do not tell. A line ending in ``#@save`` with no
    ``#`` and no quote before it is a mark when it starts a top-level statement (or one of
    its decorators) or lies between statements: no string can be open there."""
    starts = {line for node in tree.body for line in first_lines(node)}
    spans = [(statement_start(node), node.end_lineno or node.lineno) for node in tree.body]
    found: set[int] = set()
    for number, text in enumerate(lines, 1):
        match = SAVE_SUFFIX.search(text)
        if match is None:
            if MAGIC.match(text) and ("'" in text or '"' in text):
                return _tokenized_marks(source)  # a string the tree does not see
            continue
        before = text[: match.start()]
        fresh = number in starts or not any(a <= number <= b for a, b in spans)
        if "#" in before or "'" in before or '"' in before or not fresh:
            return _tokenized_marks(source)
        found.add(number)
    return found


def _block(path: str, numbered: Sequence[tuple[int, str]], notebook: int) -> SavedBlock:
    """A block of ``(page line, text)`` pairs: marks and IPython lines removed, edges trimmed."""
    kept = [(n, SAVE_SUFFIX.sub("", t)) for n, t in numbered if not MAGIC.match(t)]
    while kept and not kept[0][1].strip():
        kept.pop(0)
    while kept and not kept[-1][1].strip():
        kept.pop()
    return SavedBlock(path, tuple(n for n, _ in kept), "\n".join(t for _, t in kept), notebook)


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
    if "@save" not in source:
        return []
    return source_blocks(source, cell_meta(cell).source_line, path, notebook, framework)


def source_blocks(
    source: str, source_line: Callable[[int], int], path: str, notebook: int, framework: str
) -> list[SavedBlock]:
    """The saved blocks of a cell's ``source``; ``source_line`` maps its lines to the page's."""
    lines = source.split("\n")

    def where(line: int) -> Location:
        return Location(path, source_line(line), framework)

    blank_magics = "\n".join("" if MAGIC.match(t) else t for t in lines)
    try:
        tree = parse_code(blank_magics)
    except SyntaxError as exc:
        marks = _tokenized_marks(source)
        if not marks:
            return []
        raise PolybookError(
            where(exc.lineno or min(marks)),
            f"cannot parse a cell with #@save: {exc.msg}",
            "library.syntax",
        ) from exc
    marks = _save_lines(source, lines, tree)
    if not marks:
        return []
    numbered = [(source_line(k), t) for k, t in enumerate(lines, start=1)]
    spans = [(statement_start(node), node.end_lineno or node.lineno) for node in tree.body]
    groups: list[tuple[int, int]] = []  # (first, last) statement indices
    for mark in sorted(marks):
        alone = bool(SAVE.match(lines[mark - 1].strip()))
        inside = [i for i, (a, b) in enumerate(spans) if a <= mark <= b]
        if inside and not alone and mark <= header_end(tree.body[inside[0]]):
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


# Each notebook's saved blocks, kept while it is the very notebook a build is given (see
# HeldMemo; a page unchanged keeps its notebook): an edit extracts its own page again.
_BLOCKS: HeldMemo[tuple[SavedBlock, ...]] = HeldMemo(8192)


def notebook_blocks(
    nb: NotebookNode, path: str, index: int, framework: str
) -> tuple[SavedBlock, ...]:
    """The saved blocks of one notebook, the ``index``-th of the book."""

    def extract(_: Reporter) -> tuple[SavedBlock, ...]:  # an error is raised, not reported
        code = (cell for cell in nb.cells if cell.cell_type == "code")
        return tuple(block for cell in code for block in cell_blocks(cell, path, index, framework))

    return _BLOCKS.get((nb,), f"{path}\0{index}\0{framework}", extract, Reporter())


def extract_blocks(
    notebooks: Sequence[tuple[str, NotebookNode]], framework: str
) -> list[SavedBlock]:
    """All saved blocks of ``framework``'s notebooks, given in book order."""
    blocks: list[SavedBlock] = []
    for index, (path, nb) in enumerate(notebooks):
        blocks.extend(notebook_blocks(nb, path, index, framework))
    return blocks
