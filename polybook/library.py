"""Library stage: the ``#@save`` code of one framework, in book order -> ``d2l/<lib>.py``."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.meta import cell_meta
from polybook.nb import Notebooks

SAVE = "#@save"
SAVE_SUFFIX = re.compile(r"\s*#@save\s*$")
MAGIC = re.compile(r"^\s*[%!]")
HEADER = '''"""The d2l library for {display}, extracted by polybook from the book's #@save code.

Generated file: edit the book's sources instead.
"""

import sys

d2l = sys.modules[__name__]
'''


@dataclass(frozen=True)
class SavedBlock:
    """One saved statement (or cell) with the page line of each of its lines."""

    path: str
    lines: tuple[int, ...]  # lines[k] is the page line of the code's line k + 1
    code: str
    notebook: int  # position of its notebook in book order

    @property
    def line(self) -> int:
        return self.lines[0] if self.lines else 0

    def source_line(self, code_line: int) -> int:
        """The page line of the block's 1-based line ``code_line``."""
        if 0 < code_line <= len(self.lines):
            return self.lines[code_line - 1]
        return self.lines[-1] if self.lines else 0


def _save_lines(source: str) -> set[int]:
    """1-based lines of ``source`` whose comment is exactly ``#@save``."""
    found: set[int] = set()
    if SAVE not in source:
        return found
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and tok.string.strip() == SAVE:
                found.add(tok.start[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = {n for n, t in enumerate(source.split("\n"), 1) if SAVE_SUFFIX.search(t)}
    return found


def _block(path: str, numbered: Sequence[tuple[int, str]], notebook: int) -> SavedBlock:
    """A block of ``(page line, text)`` pairs, marks removed and blank edges trimmed."""
    kept = [(n, SAVE_SUFFIX.sub("", t)) for n, t in numbered]
    while kept and not kept[0][1].strip():
        kept.pop(0)
    while kept and not kept[-1][1].strip():
        kept.pop()
    return SavedBlock(path, tuple(n for n, _ in kept), "\n".join(t for _, t in kept), notebook)


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

    first = next((n for n, t in enumerate(lines, 1) if t.strip()), 1)
    if lines[first - 1].strip() == SAVE:
        return [_block(path, numbered[first:], notebook)]
    blank_magics = "\n".join("" if MAGIC.match(t) else t for t in lines)
    try:
        tree = ast.parse(blank_magics)
    except SyntaxError as exc:
        raise PolybookError(
            where(exc.lineno or min(marks)),
            f"cannot parse a cell with #@save: {exc.msg}",
            "library.syntax",
        ) from exc
    blocks: list[SavedBlock] = []
    used: set[int] = set()
    for node in tree.body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        header = set(range(start, _header_end(node) + 1))
        if header & marks:
            used |= header & marks
            end = node.end_lineno or node.lineno
            blocks.append(_block(path, numbered[start - 1 : end], notebook))
    stray = sorted(marks - used)
    if stray:
        raise PolybookError(
            where(stray[0]),
            "#@save must mark a top-level statement or a whole cell",
            "library.save",
        )
    return blocks


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
        if isinstance(deco, ast.Call) and deco.args:
            func = ast.unparse(deco.func)
            if func in {"add_to_class", "d2l.add_to_class"}:
                return ast.unparse(deco.args[0]).removeprefix("d2l."), deco.lineno
    return None


def check_blocks(blocks: Sequence[SavedBlock], framework: str) -> None:
    """Each block compiles, and every ``add_to_class`` target is saved before it is used."""
    defined: set[str] = set()
    for block in blocks:
        try:
            tree = ast.parse(block.code)
        except SyntaxError as exc:
            raise _syntax_error(block, exc, framework) from exc
        for node in tree.body:
            added = _added_class(node)
            if added and added[0] not in defined:
                raise PolybookError(
                    Location(block.path, block.source_line(added[1]), framework),
                    f"add_to_class({added[0]}): {added[0]} is not saved earlier in book order",
                    "library.add_to_class",
                )
            defined.update(_defined_names(node))
    try:  # what parses may still not compile (e.g. `return` outside a function)
        compile("\n".join(b.code for b in blocks), "<library>", "exec", dont_inherit=True)
    except SyntaxError:
        for block in blocks:
            try:
                compile(block.code, "<block>", "exec", dont_inherit=True)
            except SyntaxError as exc:
                raise _syntax_error(block, exc, framework) from exc


def _syntax_error(block: SavedBlock, exc: SyntaxError, framework: str) -> PolybookError:
    return PolybookError(
        Location(block.path, block.source_line(exc.lineno or 1), framework),
        f"saved code does not compile: {exc.msg}",
        "library.syntax",
    )


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return {t.id for t in ast.walk(node) if isinstance(t, ast.Name)}
    return set()


def public_names(blocks: Sequence[SavedBlock]) -> dict[str, SavedBlock]:
    """Names a library defines for its users (functions, classes, constants), first block."""
    names: dict[str, SavedBlock] = {}
    for block in blocks:
        for node in ast.parse(block.code).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in _defined_names(node):
                if not name.startswith("_") and name != "d2l":
                    names.setdefault(name, block)
    return names


def parity_gaps(
    libraries: dict[str, list[SavedBlock]], allowed: Sequence[str]
) -> list[tuple[str, SavedBlock, list[str]]]:
    """Public names some frameworks define and others lack: (name, where, missing in)."""
    defined = {fw: public_names(blocks) for fw, blocks in libraries.items()}
    gaps = []
    for fw, names in defined.items():
        for name, block in names.items():
            missing = [other for other in defined if name not in defined[other]]
            if (
                missing
                and name not in allowed
                and fw == next(f for f in defined if name in defined[f])
            ):
                gaps.append((name, block, missing))
    return gaps


def library_text(blocks: Sequence[SavedBlock], display: str) -> str:
    """The library module: a header, then each block after a comment naming its source."""
    parts = [HEADER.format(display=display)]
    for block in blocks:
        parts.append(f"\n# {block.path}:{block.line}\n{block.code}\n")
    return "".join(parts)


def extract_libraries(notebooks: Notebooks, reporter: Reporter) -> dict[str, list[SavedBlock]]:
    """Each framework's saved code, checked; a framework whose code fails is left out."""
    libraries: dict[str, list[SavedBlock]] = {}
    for fw, nbs in notebooks.items():
        try:
            blocks = extract_blocks(nbs, fw)
            check_blocks(blocks, fw)
        except PolybookError as err:
            reporter.error(err)
            continue
        libraries[fw] = blocks
    return libraries


def check_parity(
    libraries: dict[str, list[SavedBlock]], allowed: Sequence[str], reporter: Reporter
) -> None:
    """Warn about public names some frameworks' libraries define and others lack."""
    if len(libraries) < 2:
        return
    for name, block, missing in parity_gaps(libraries, allowed):
        reporter.warn(
            Location(block.path, block.line),
            f"{name} is not in the library of {', '.join(missing)} "
            "(declare it in [library] framework_specific)",
            "library.parity",
        )
