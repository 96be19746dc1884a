"""The library's model: saved blocks of code with the page line of each of their lines, and
what each top-level statement of a block defines."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, replace
from functools import cached_property

from polybook.library.syntax import (
    added_to_class,
    defined_names,
    imported_modules,
    parse_code,
    statement_start,
)


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
    added = added_to_class(node)
    names, methods = defined_names(node)
    is_import = isinstance(node, (ast.Import, ast.ImportFrom))
    modules = frozenset(imported_modules(node))
    return Statement(
        statement_start(node), names, methods, added[0] if added else None, is_import, modules
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
