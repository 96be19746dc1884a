"""The library's model: saved blocks of code with the page line of each of their lines, and
what each top-level statement of a block defines."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from functools import cached_property

from polybook.library.syntax import (
    added_to_class,
    defined_names,
    imported_modules,
    mangled_names,
    parse_code,
    statement_start,
)
from polybook.memo import memoised

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


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
class Member:
    """A statement of a class body: its lines in the block, and a method's name ("" for
    another statement)."""

    name: str
    start: int  # first line, decorators included
    end: int  # the line before the next member (the class's last line for the last one)


@dataclass(frozen=True)
class Statement:
    """What a top-level statement of a saved block is to the library's checks, and where its
    parts are (what the library module's text is made of: :mod:`polybook.library.compose`)."""

    line: int  # its first line in the block, decorators included
    names: frozenset[str]  # module-level names it binds
    methods: frozenset[str]  # ``Class.method``, for a def attached with add_to_class
    added_to: tuple[str, int] | None  # (class, decorator line) of add_to_class
    is_import: bool
    modules: frozenset[str] = frozenset()  # the top-level modules an import statement loads
    end: int = 0  # its last line
    name: str = ""  # a class's or a def's
    members: tuple[Member, ...] = ()  # a class's body, where the library may add methods
    indent: int = 0  # a class body's indentation
    # An add_to_class def the library may write into its class's body (add_to_class is its
    # outermost decorator; it names no private ``__attribute``, which a class body mangles):
    # the first line after that decorator; 0 otherwise.
    movable: int = 0


@memoised(8192)
def _statements(code: str) -> tuple[Statement, ...]:
    return tuple(_statement(node) for node in parse_code(code).body)


def _members(node: ast.ClassDef) -> tuple[Member, ...]:
    starts = [statement_start(stmt) for stmt in node.body]
    ends = [start - 1 for start in starts[1:]] + [node.end_lineno or starts[-1]]
    return tuple(
        Member(stmt.name if isinstance(stmt, DEFS) else "", start, end)
        for stmt, start, end in zip(node.body, starts, ends, strict=True)
    )


def _movable(node: ast.stmt, added: list[tuple[str, int]]) -> int:
    if not isinstance(node, DEFS) or len(added) != 1:
        return 0
    outermost = node.decorator_list[0]
    if added[0][1] != outermost.lineno or mangled_names(node):
        return 0
    return (outermost.end_lineno or outermost.lineno) + 1


def _statement(node: ast.stmt) -> Statement:
    added = added_to_class(node)
    names, methods = defined_names(node)
    is_class = isinstance(node, ast.ClassDef) and bool(node.body)
    return Statement(
        statement_start(node),
        names,
        methods,
        added[0] if added else None,
        isinstance(node, (ast.Import, ast.ImportFrom)),
        frozenset(imported_modules(node)),
        end=node.end_lineno or node.lineno,
        name=getattr(node, "name", ""),
        members=_members(node) if isinstance(node, ast.ClassDef) and is_class else (),
        indent=node.body[0].col_offset if isinstance(node, ast.ClassDef) and is_class else 0,
        movable=_movable(node, added),
    )


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
