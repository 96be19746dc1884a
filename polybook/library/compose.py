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

from collections.abc import Sequence
from dataclasses import dataclass, field

from polybook.library.model import SavedBlock, Statement

HEADER = '''"""The d2l library for {display}, extracted by polybook from the book's #@save code.

Generated file: edit the book's sources instead.
"""

import sys

d2l = sys.modules[__name__]
'''


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


def _class(statement: Statement, lines: list[str], start: int, end: int) -> _Class:
    """The class of ``statement`` from the block's ``lines`` [start, end) (0-based)."""
    members = [_Member(m.name, lines[m.start - 1 : m.end]) for m in statement.members]
    head = lines[start : statement.members[0].start - 1]
    tail = lines[statement.end : end]
    return _Class(statement.name, " " * statement.indent, head, members, tail)


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
        statements = block.statements
        if not any(s.members or s.added_to for s in statements):
            self.text_unit().extend(["", f"# {block.path}:{block.line}", *lines])
            return  # most blocks: no class to write into, nothing to move
        headed = False
        pending: dict[str, None] = {}  # methods left at module level, to delete
        for k, statement in enumerate(statements):
            end = statements[k + 1].line - 1 if k + 1 < len(statements) else len(lines)
            begin = 0 if k == 0 else statement.line - 1
            target = self.classes.get(statement.added_to[0]) if statement.added_to else None
            if target is not None and statement.movable:
                self.move(statement, block, lines, target)
                continue
            if not headed:
                self.text_unit().extend(["", f"# {block.path}:{block.line}"])
                headed = True
            for name in statement.names:
                pending.pop(name, None)
            if statement.added_to and statement.name:
                pending[statement.name] = None
            if statement.members:
                found = _class(statement, lines, begin, end)
                self.units.append(found)
                self.classes[found.name] = found
            else:
                self.text_unit().extend(lines[begin:end])
        if pending:
            self.text_unit().extend(f"del {name}" for name in pending)

    def move(
        self, statement: Statement, block: SavedBlock, lines: list[str], target: _Class
    ) -> None:
        """The method of ``statement`` into ``target``'s body, without its add_to_class."""
        method = _trimmed(lines[statement.movable - 1 : statement.end])
        place = block.source_line(statement.line)
        indent = target.indent
        moved = [f"{indent}# {block.path}:{place}", *(indent + t if t else t for t in method)]
        target.attach(statement.name, moved)

    def text(self, display: str) -> str:
        out: list[str] = []
        for unit in self.units:
            out.extend(unit.text() if isinstance(unit, _Class) else unit)
        body = "\n".join(out) + "\n" if out else ""
        return HEADER.format(display=display) + body


def library_text(blocks: Sequence[SavedBlock], display: str) -> str:
    """The library module of ``blocks`` (see the module's documentation)."""
    composer = _Composer()
    for block in blocks:
        composer.add(block)
    return composer.text(display)
