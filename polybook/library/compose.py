"""The library module's text: the saved blocks in book order, each after a comment naming
its place, with the methods that ``add_to_class`` attaches written at the end of their
class's body (a later definition replacing the earlier one), as d2lbook's libraries have
them.

A method stays a decorated function at module level, deleted after its block (``del fit``),
where moving it would change what it does: its class is not a class the library defines
before it, ``add_to_class`` is not its outermost decorator, or it names a private
``__attribute`` (which a class body would mangle).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

from polybook.library.model import SavedBlock
from polybook.library.syntax import added_to_class, statement_start

HEADER = '''"""The d2l library for {display}, extracted by polybook from the book's #@save code.

Generated file: edit the book's sources instead.
"""

import sys

d2l = sys.modules[__name__]
'''
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class _Member:
    """A statement of a class body: a method (by name) or anything else (``name`` "")."""

    name: str
    lines: list[str]
    moved: bool = False  # attached by add_to_class


@dataclass
class _Class:
    """A saved class, whose body later blocks may add methods to."""

    name: str
    indent: str
    head: list[str]  # the class line(s), up to its first statement
    members: list[_Member]
    tail: list[str] = field(default_factory=list)  # what follows it in its block

    def attach(self, name: str, lines: list[str]) -> None:
        """Add method ``name`` at the end, the members it replaces removed (a body that was
        only ``pass`` holds methods now)."""
        self.members = [
            m
            for m in self.members
            if m.name != name and [t.strip() for t in _trimmed(m.lines)] != ["pass"]
        ]
        self.members.append(_Member(name, lines, moved=True))

    def text(self) -> list[str]:
        out = list(self.head)
        for member in self.members:
            if member.moved and out and out[-1].strip() and len(out) > len(self.head):
                out.append("")  # a method written in stands apart
            out.extend([*member.lines, ""] if member.moved else member.lines)
        return [*_trimmed(out), *self.tail]


Unit = list[str] | _Class  # lines of text, or a class


def _trimmed(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def _private_names(node: ast.AST) -> bool:
    """Whether ``node`` names an ``__attribute``, which Python mangles inside a class."""
    for inner in ast.walk(node):
        name = inner.id if isinstance(inner, ast.Name) else getattr(inner, "attr", "")
        if isinstance(name, str) and name.startswith("__") and not name.endswith("__"):
            return True
    return False


def _target(node: ast.stmt, classes: dict[str, _Class]) -> _Class | None:
    """The class ``node`` (a def) moves into, or None where it stays at module level."""
    if not isinstance(node, DEFS) or not node.decorator_list:
        return None
    added = added_to_class(node)
    outermost = node.decorator_list[0]
    if len(added) != 1 or added[0][1] != outermost.lineno or _private_names(node):
        return None
    return classes.get(added[0][0])


def _class(node: ast.ClassDef, lines: list[str], start: int, end: int) -> _Class:
    """The class at ``node`` from the block's ``lines`` [start, end) (0-based)."""
    body_starts = [statement_start(stmt) - 1 for stmt in node.body]
    head = lines[start : body_starts[0]]
    members = []
    for k, stmt in enumerate(node.body):
        last = body_starts[k + 1] if k + 1 < len(node.body) else (node.end_lineno or 0)
        name = stmt.name if isinstance(stmt, DEFS) else ""
        members.append(_Member(name, lines[body_starts[k] : last]))
    indent = " " * node.body[0].col_offset
    return _Class(node.name, indent, head, members, lines[node.end_lineno or 0 : end])


class _Composer:
    """The library's units, block after block."""

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.classes: dict[str, _Class] = {}  # the latest class of each name

    def text_unit(self) -> list[str]:
        last = self.units[-1] if self.units else None
        if not isinstance(last, list):
            last = []
            self.units.append(last)
        return last

    def add(self, block: SavedBlock) -> None:
        lines = block.code.split("\n")
        body = block.tree.body
        starts = [statement_start(node) - 1 for node in body]
        headed = False
        pending: dict[str, None] = {}  # methods left at module level, to delete
        for k, node in enumerate(body):
            end = starts[k + 1] if k + 1 < len(body) else len(lines)
            begin = 0 if k == 0 else starts[k]
            target = _target(node, self.classes)
            if target is not None and isinstance(node, DEFS):
                self.move(node, block, lines, target)
                continue
            if not headed:
                self.text_unit().extend(["", f"# {block.path}:{block.line}"])
                headed = True
            for name in _bound(node):
                pending.pop(name, None)
            if added_to_class(node) and isinstance(node, DEFS):
                pending[node.name] = None
            if isinstance(node, ast.ClassDef) and node.body:
                found = _class(node, lines, begin, end)
                self.units.append(found)
                self.classes[found.name] = found
            else:
                self.text_unit().extend(lines[begin:end])
        if pending:
            self.text_unit().extend(f"del {name}" for name in pending)

    def move(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        block: SavedBlock,
        lines: list[str],
        target: _Class,
    ) -> None:
        """The method ``node`` into ``target``'s body, without its ``add_to_class``."""
        after = node.decorator_list[0].end_lineno or node.decorator_list[0].lineno
        method = _trimmed(lines[after : node.end_lineno])
        place = block.source_line(statement_start(node))
        indent = target.indent
        moved = [f"{indent}# {block.path}:{place}", *(indent + t if t else t for t in method)]
        target.attach(node.name, moved)

    def text(self, display: str) -> str:
        out: list[str] = []
        for unit in self.units:
            out.extend(unit.text() if isinstance(unit, _Class) else unit)
        body = "\n".join(out) + "\n" if out else ""
        return HEADER.format(display=display) + body


def _bound(node: ast.stmt) -> set[str]:
    """Module-level names a statement binds (what a pending ``del`` must not undo)."""
    if isinstance(node, (ast.ClassDef, *DEFS)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def library_text(blocks: Sequence[SavedBlock], display: str) -> str:
    """The library module of ``blocks`` (see the module's documentation)."""
    composer = _Composer()
    for block in blocks:
        composer.add(block)
    return composer.text(display)
