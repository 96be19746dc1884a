"""``tab.selected(...)`` in code cells: ``if``/``elif``/``else`` chains decided per framework.

A condition made of ``tab.selected(...)`` calls, ``and``, ``or``, ``not`` and ``True`` /
``False`` is decided when a framework's notebook is made: the branch that holds replaces the
chain (its body dedented), the others are dropped. A branch with an ordinary condition stays
as it is written (an ``elif`` that comes first becomes an ``if``). Every kept line keeps its
source line. A condition that mixes ``tab.selected`` with other names cannot be decided
before the code runs: an error at its line. A framework polybook knows but the book does
not build (``tab.selected('mxnet')`` in a PyTorch and JAX book) is simply not selected.
As in d2lbook, a line is dedented once, however many decided branches hold it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from polybook.config.declarations import SHIPPED
from polybook.diagnostics import Location, PolybookError
from polybook.memo import memoised

Line = tuple[int, str]  # (source line number, text)
SELECTED = "tab.selected"
IF = re.compile(r"^(\s*)(if|elif)\b")
ELSE = re.compile(r"^(\s*)else\s*:\s*(.*)$")
MAX_HEADER = 10  # lines a condition may span (inside brackets or after a backslash)


@dataclass(frozen=True)
class _Branch:
    """One ``if``, ``elif`` or ``else`` of a chain; ranges are indices into the lines."""

    test: ast.expr | None  # None for ``else``
    header: tuple[int, int]
    body: tuple[int, int]
    inline: str  # a body written on the header's line (``if c: x = 1``), else ""


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _loose(text: str) -> bool:
    """Blank and comment lines: Python ignores their indentation."""
    stripped = text.strip()
    return not stripped or stripped.startswith("#")


def _block(lines: list[Line], start: int, indent: int) -> int:
    """End (exclusive) of the indented body that starts at ``start``."""
    end = start
    while end < len(lines) and (_loose(lines[end][1]) or _indent(lines[end][1]) > indent):
        end += 1
    # Blank lines, and comments no deeper than the ``if``, after the body are not its own.
    while end > start and _loose(text := lines[end - 1][1]):
        if text.strip() and _indent(text) > indent:
            break
        end -= 1
    return end


def _dedent(lines: list[Line], by: int) -> list[Line]:
    """Lines less ``by`` columns of indentation (less only whitespace); numbers kept."""
    return [(n, t[min(by, _indent(t)) :] if t.strip() else "") for n, t in lines]


def _after_deeper(lines: list[Line], index: int, indent: int) -> bool:
    """Whether the last line of code before ``index`` is indented deeper than ``indent``."""
    before = [t for _, t in lines[:index] if not _loose(t)]
    return bool(before) and _indent(before[-1]) > indent


def _is_selected(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "selected"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "tab"
    )


@memoised(4096)
def _parse(text: str) -> ast.Module:
    """A header's tree, read once for all frameworks (callers do not change it)."""
    return ast.parse(text)


def _parse_header(lines: list[Line], index: int) -> tuple[ast.If, int, str] | None:
    """The ``if``/``elif`` header at ``index``: its node, its number of lines, its inline body."""
    for count in range(1, min(MAX_HEADER, len(lines) - index) + 1):
        texts = [t for _, t in lines[index : index + count]]
        texts[0] = re.sub(r"^\s*(?:el)?if", "if", texts[0], count=1)
        text = "\n".join(texts)
        for suffix in ("\n pass", ""):  # a body on the next lines, or on the header's own
            try:
                tree = _parse(text + suffix)
            except SyntaxError:
                continue
            node = tree.body[0] if len(tree.body) == 1 else None
            if not isinstance(node, ast.If):
                return None
            first = node.body[0]
            inline = texts[first.lineno - 1][first.col_offset :] if not suffix else ""
            return node, count, inline
    return None


class _Selector:
    def __init__(self, framework: str, path: str, tabs: tuple[str, ...]) -> None:
        self.framework = framework
        self.path = path
        self.tabs = tabs
        self.inside = False  # in the body of a decided branch

    def where(self, line: Line) -> Location:
        return Location(self.path, line[0], self.framework)

    def scan(self, lines: list[Line]) -> list[Line]:
        kept: list[Line] = []
        index = 0
        while index < len(lines):
            number, text = lines[index]
            match = IF.match(text)
            if match and match.group(2) == "if":
                chain = self.chain(lines, index, len(match.group(1)))
                if chain and any(self.decides(b, lines) for b in chain):
                    kept.extend(self.resolve(lines, chain, match.group(1)))
                    index = chain[-1].body[1]
                    continue
                if chain is None and SELECTED in text:
                    message = "cannot read this `if`: its condition does not parse, or no body"
                    raise PolybookError(self.where(lines[index]), message, "split.tab")
            if SELECTED in text and not text.lstrip().startswith("#"):
                message = "tab.selected() is understood only in the condition of an `if` or `elif`"
                raise PolybookError(self.where(lines[index]), message, "split.tab")
            kept.append((number, text))
            index += 1
        return kept

    def chain(self, lines: list[Line], index: int, indent: int) -> list[_Branch] | None:
        """The branches of the ``if`` chain at ``index``; None where its header does not parse."""
        branches: list[_Branch] = []
        while True:
            parsed = _parse_header(lines, index)
            if parsed is None:
                return branches or None
            node, count, inline = parsed
            body_start = index + count
            end = body_start if inline else _block(lines, body_start, indent)
            if end == body_start and not inline:
                return None
            branches.append(_Branch(node.test, (index, body_start), (body_start, end), inline))
            index = end
            while index < len(lines) and _loose(lines[index][1]):
                index += 1
            if index >= len(lines) or _indent(lines[index][1]) != indent:
                return branches
            text = lines[index][1]
            if (match := IF.match(text)) and match.group(2) == "elif":
                continue
            if other := ELSE.match(text):
                rest = other.group(2)
                inline = "" if not rest or rest.startswith("#") else rest
                start = index + 1
                end = start if inline else _block(lines, start, indent)
                branches.append(_Branch(None, (index, start), (start, end), inline))
            return branches

    def resolve(self, lines: list[Line], chain: list[_Branch], indent: str) -> list[Line]:
        """The lines that stand for ``chain`` in this framework's notebook."""
        out: list[Line] = []
        emitted = False  # a branch with an ordinary condition is kept: later ones follow it
        for branch in chain:
            header = lines[branch.header[0] : branch.header[1]]
            body = lines[branch.body[0] : branch.body[1]]
            decided = self.decide(branch.test, header[0])
            if decided is False:
                continue
            if decided is None:  # an ordinary condition: kept as written
                number, text = header[0]
                keyword = "elif" if emitted else "if"
                out.append((number, re.sub(r"^(\s*)(?:el)?if", rf"\g<1>{keyword}", text, count=1)))
                out.extend(header[1:])
                out.extend(self.scan(body))
                emitted = True
                continue
            if emitted and branch.test is None:
                out.extend(header)
                out.extend(self.scan(body))
            elif emitted:  # the rest of the chain is its `else`
                where = header[-1][0] if branch.inline else header[0][0]
                out.append((where, f"{indent}else: {branch.inline}".rstrip()))
                out.extend(self.scan(body))
            elif branch.inline:
                out.append((header[-1][0], indent + branch.inline))
            else:
                code = [_indent(t) for _, t in body if not _loose(t)]
                by = (min(code) if code else len(indent)) - len(indent)
                # d2lbook dedents a line once, however many decided branches hold it: a
                # decided `if` inside another, right after a deeper block (d2l-en's
                # `if tab.selected('tensorflow'):` after a `def`'s body), keeps its body
                # where it is: in that block.
                if self.inside and _after_deeper(lines, chain[0].header[0], len(indent)):
                    by = 0
                outer, self.inside = self.inside, True
                out.extend(self.scan(_dedent(body, by)))
                self.inside = outer
            break
        return out

    def decides(self, branch: _Branch, lines: list[Line]) -> bool:
        """Whether ``branch`` has a condition decided per framework."""
        test = branch.test
        return test is not None and self.decide(test, lines[branch.header[0]]) is not None

    def decide(self, test: ast.expr | None, header: Line) -> bool | None:
        """What ``test`` is for this framework; None when it does not use tab.selected."""
        if test is None:
            return True
        if not any(_is_selected(node) for node in ast.walk(test)):
            return None
        return self.value(test, test, header)

    def value(self, node: ast.expr, test: ast.expr, header: Line) -> bool:
        if _is_selected(node):
            assert isinstance(node, ast.Call)
            return self.framework in self.names(node, header)
        if isinstance(node, ast.BoolOp):
            values = [self.value(v, test, header) for v in node.values]  # all checked
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.value(node.operand, test, header)
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return node.value
        message = (
            f"`{ast.unparse(test)}` mixes tab.selected() with other names: it cannot be "
            "decided per framework before the code runs"
        )
        raise PolybookError(self.where(header), message, "split.tab")

    def names(self, call: ast.Call, header: Line) -> set[str]:
        args: list[ast.expr] = list(call.args)
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            args = list(args[0].elts)  # d2lbook also takes one list of names
        values = [a.value for a in args if isinstance(a, ast.Constant)]
        if call.keywords or not args or len(values) != len(args):
            values = []
        if not values or not all(isinstance(v, str) for v in values):
            message = "tab.selected() takes framework names as strings"
            raise PolybookError(self.where(header), message, "split.tab")
        names = {str(v) for v in values}
        # A framework the book does not build is never the one selected, as in d2lbook.
        unknown = sorted(names - set(self.tabs) - set(SHIPPED))
        if unknown:
            # Imported here: the polybook kernels import this module without markdown-it.
            from polybook.source.prose_split import unknown_framework

            message = f"tab.selected() names {unknown_framework(unknown[0], self.tabs)}"
            raise PolybookError(self.where(header), message, "split.tab")
        return names


def select_branches(
    lines: list[Line], framework: str, path: str, tabs: tuple[str, ...]
) -> list[Line]:
    """``lines`` with every ``tab.selected`` chain decided for ``framework``."""
    if not any(SELECTED in text for _, text in lines):
        return list(lines)
    return _Selector(framework, path, tabs).scan(lines)
