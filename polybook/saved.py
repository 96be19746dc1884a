"""The ``#@save`` marks of code cells: which statements go into the library.

``#@save`` at the end of a top-level statement's first line (a decorator's, for a decorated
def) saves that statement; ``#@save`` alone on its line saves the statement below it, as
d2lbook does (see :func:`_run_end`). IPython lines (``%magic``, ``!command``) are left out.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from polybook.diagnostics import Location, PolybookError
from polybook.meta import cell_meta

if TYPE_CHECKING:
    from nbformat import NotebookNode

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
        return parse_code(self.code)

    @cached_property
    def statements(self) -> tuple[Statement, ...]:
        """What each top-level statement defines (raises SyntaxError as :attr:`tree`).
        Small: it travels with the block from the process that read the page."""
        return _statements(self.code)

    def at(self, notebook: int) -> SavedBlock:
        """This block, read from the notebook at position ``notebook``; what it has worked
        out comes along."""
        moved = replace(self, notebook=notebook)
        if "statements" in self.__dict__:
            moved.__dict__["statements"] = self.__dict__["statements"]
        return moved

    def __getstate__(self) -> dict[str, object]:
        # A tree is not worth sending to another process: it is parsed again there.
        return {key: value for key, value in self.__dict__.items() if key != "tree"}

    @property
    def line(self) -> int:
        return self.lines[0] if self.lines else 0

    def source_line(self, code_line: int) -> int:
        """The page line of the block's 1-based line ``code_line``."""
        if 0 < code_line <= len(self.lines):
            return self.lines[code_line - 1]
        return self.lines[-1] if self.lines else 0


@dataclass(frozen=True)
class Statement:
    """What a top-level statement of a saved block is to the library's checks."""

    line: int  # its first line in the block, decorators included
    names: frozenset[str]  # module-level names it binds
    methods: frozenset[str]  # ``Class.method``, for a def attached with add_to_class
    added_to: tuple[str, int] | None  # (class, decorator line) of add_to_class
    is_import: bool
    modules: frozenset[str] = frozenset()  # the top-level modules an import statement loads


@functools.lru_cache(maxsize=8192)
def _statements(code: str) -> tuple[Statement, ...]:
    return tuple(_statement(node) for node in parse_code(code).body)


def _statement(node: ast.stmt) -> Statement:
    added = _added_class(node)
    names, methods = _defines(node, added)
    is_import = isinstance(node, (ast.Import, ast.ImportFrom))
    modules = frozenset(_imported_modules(node))
    return Statement(statement_start(node), names, methods, added, is_import, modules)


def _imported_modules(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name.partition(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.partition(".")[0]]
    return []


@functools.lru_cache(maxsize=8192)
def parse_code(code: str) -> ast.Module:
    """``code``'s syntax tree, read once for the frameworks that share it; callers must not
    change it."""
    return ast.parse(code)


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
    starts = {line for node in tree.body for line in _first_lines(node)}
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


def _first_lines(node: ast.stmt) -> list[int]:
    """Lines on which a part of a top-level statement starts: its decorators, itself."""
    return [*(int(d.lineno) for d in getattr(node, "decorator_list", [])), node.lineno]


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


@dataclass(frozen=True)
class SourceCell:
    """A code cell of one framework's notebook, as the library stage reads it: made from the
    page's cell without building the notebook (see ``polybook.source.split``)."""

    path: str
    notebook: int  # position of its notebook in book order
    lines: tuple[tuple[int, str], ...]  # (page line, text), as the notebook's cell has them

    def source_line(self, cell_line: int) -> int:
        """As :meth:`polybook.meta.CellMeta.source_line` of the notebook's cell."""
        if 0 < cell_line <= len(self.lines):
            return self.lines[cell_line - 1][0]
        return self.lines[0][0] if self.lines else 0


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


def _added_class(node: ast.stmt) -> tuple[str, int] | None:
    """``("Trainer", line)`` for a def decorated with ``add_to_class(d2l.Trainer)``."""
    for deco in getattr(node, "decorator_list", []):
        if isinstance(deco, ast.Call) and deco.args and _is_add_to_class(deco.func):
            return ast.unparse(deco.args[0]).removeprefix("d2l."), deco.lineno
    return None


def _is_add_to_class(func: ast.expr) -> bool:
    """``add_to_class`` or ``d2l.add_to_class``."""
    if isinstance(func, ast.Name):
        return func.id == "add_to_class"
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "add_to_class"
        and isinstance(func.value, ast.Name)
        and func.value.id == "d2l"
    )


def _targets(target: ast.expr) -> set[str]:
    """Names an assignment target binds (``x``, ``x, y``); ``X[k]`` and ``X.a`` bind none."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _targets(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in _targets(element)}
    return set()


def definitions(node: ast.stmt) -> tuple[frozenset[str], frozenset[str]]:
    """What a top-level statement defines: (module-level names, ``Class.method`` names).

    A def decorated with ``add_to_class(C)`` is a method of ``C`` only: the library does
    not keep its name at module level (see :func:`library_text`).
    """
    return _defines(node, _added_class(node))


def _defines(
    node: ast.stmt, added: tuple[str, int] | None
) -> tuple[frozenset[str], frozenset[str]]:
    """:func:`definitions`, given what :func:`_added_class` says of ``node``."""
    names: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and added:
        return frozenset(), frozenset({f"{added[0]}.{node.name}"})
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        names = {node.name}
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        names = {(a.asname or a.name).split(".")[0] for a in node.names}
    elif isinstance(node, ast.Assign):
        names = {name for target in node.targets for name in _targets(target)}
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        names = _targets(node.target)
    return frozenset(names), frozenset()
