"""Library stage: the ``#@save`` code of one framework, in book order -> ``d2l/<lib>.py``."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.nb import Notebooks
from polybook.saved import (
    SavedBlock,
    SourceCell,
    cells_blocks,
    extract_blocks,
    parse_code,
    statement_start,
)

__all__ = [  # SavedBlock and extract_blocks live in polybook.saved
    "HEADER",
    "SavedBlock",
    "check_blocks",
    "check_parity",
    "check_redefinitions",
    "definitions",
    "extract_blocks",
    "extract_libraries",
    "libraries_from_cells",
    "library_text",
    "parity_gaps",
    "public_names",
    "redefinitions",
]

HEADER = '''"""The d2l library for {display}, extracted by polybook from the book's #@save code.

Generated file: edit the book's sources instead.
"""

import sys

d2l = sys.modules[__name__]
'''


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


def definitions(node: ast.stmt) -> tuple[set[str], set[str]]:
    """What a top-level statement defines: (module-level names, ``Class.method`` names).

    A def decorated with ``add_to_class(C)`` is a method of ``C`` only: the library does
    not keep its name at module level (see :func:`library_text`).
    """
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (added := _added_class(node)):
        return set(), {f"{added[0]}.{node.name}"}
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return {node.name}, set()
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}, set()
    if isinstance(node, ast.Assign):
        return {name for target in node.targets for name in _targets(target)}, set()
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return _targets(node.target), set()
    return set(), set()


def check_blocks(blocks: Sequence[SavedBlock], framework: str) -> None:
    """Each block compiles, and every ``add_to_class`` target is saved before it is used."""
    defined: set[str] = set()
    for block in blocks:
        try:
            tree = block.tree
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
            defined.update(definitions(node)[0])
    for block in blocks:  # what parses may still not compile (`return` outside a function)
        error = _compile_error(block.code)
        if error is not None:
            raise _syntax_error(block, error, framework) from error


@functools.lru_cache(maxsize=8192)
def _compile_error(code: str) -> SyntaxError | None:
    """Why ``code``, parsed, does not compile as part of the library; None if it does.

    Blocks compile on their own (once for the frameworks that share one): in the library a
    ``__future__`` import would follow the header, which Python refuses.
    """
    tree = parse_code(code)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            message = "from __future__ imports must occur at the beginning of the file"
            return SyntaxError(message, ("<block>", node.lineno, node.col_offset + 1, ""))
    try:
        compile(tree, "<block>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    return None


def _syntax_error(block: SavedBlock, exc: SyntaxError, framework: str) -> PolybookError:
    return PolybookError(
        Location(block.path, block.source_line(exc.lineno or 1), framework),
        f"saved code does not compile: {exc.msg}",
        "library.syntax",
    )


def public_names(blocks: Sequence[SavedBlock]) -> dict[str, SavedBlock]:
    """Names a library defines for its users (functions, classes, constants, methods as
    ``Class.method``), each with the first block that defines it."""
    names: dict[str, SavedBlock] = {}
    for block in blocks:
        for node in block.tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            module, methods = definitions(node)
            for name in sorted(module | methods):
                if not name.rpartition(".")[2].startswith("_") and name != "d2l":
                    names.setdefault(name, block)
    return names


def redefinitions(blocks: Sequence[SavedBlock]) -> list[tuple[str, Location, Location]]:
    """``(name, earlier place, later place)`` for each saved definition that replaces one
    made earlier in book order (imports aside: importing twice replaces nothing)."""
    seen: dict[str, Location] = {}
    found: list[tuple[str, Location, Location]] = []
    for block in blocks:
        for node in block.tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            place = Location(block.path, block.source_line(statement_start(node)))
            module, methods = definitions(node)
            for name in sorted(module | methods):
                if name in seen:
                    found.append((name, seen[name], place))
                seen[name] = place
    return found


def _unbound_methods(tree: ast.Module) -> list[str]:
    """Names ``add_to_class`` defs leave bound at module level, in order, for ``del``."""
    pending: dict[str, None] = {}
    for node in tree.body:
        module, methods = definitions(node)
        for name in module:
            pending.pop(name, None)
        for method in methods:
            pending[method.rpartition(".")[2]] = None
    return list(pending)


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
                and name.rpartition(".")[2] not in allowed
                and fw == next(f for f in defined if name in defined[f])
            ):
                gaps.append((name, block, missing))
    return gaps


def library_text(blocks: Sequence[SavedBlock], display: str) -> str:
    """The library module: a header, then each block after a comment naming its source.

    A method attached with ``add_to_class`` lives on its class only: its name is deleted
    from the module after its block, as d2lbook's libraries have it.
    """
    parts = [HEADER.format(display=display)]
    for block in blocks:
        parts.append(f"\n# {block.path}:{block.line}\n{block.code}\n")
        parts.extend(f"del {name}\n" for name in _unbound_methods(block.tree))
    return "".join(parts)


def extract_libraries(notebooks: Notebooks, reporter: Reporter) -> dict[str, list[SavedBlock]]:
    """Each framework's saved code, checked; a framework whose code fails is left out.

    A definition that replaces an earlier one is reported (``library.redefined``).
    """
    extract = {fw: functools.partial(extract_blocks, nbs, fw) for fw, nbs in notebooks.items()}
    return _checked(extract, reporter)


def libraries_from_cells(
    cells: dict[str, list[SourceCell]], reporter: Reporter
) -> dict[str, list[SavedBlock]]:
    """As :func:`extract_libraries`, from the cells that ``library_cells`` reads of the pages."""
    extract = {fw: functools.partial(cells_blocks, found, fw) for fw, found in cells.items()}
    return _checked(extract, reporter)


def _checked(
    extract: Mapping[str, Callable[[], list[SavedBlock]]], reporter: Reporter
) -> dict[str, list[SavedBlock]]:
    libraries: dict[str, list[SavedBlock]] = {}
    for fw, blocks_of in extract.items():
        try:
            blocks = blocks_of()
            check_blocks(blocks, fw)
        except PolybookError as err:
            reporter.error(err)
            continue
        libraries[fw] = blocks
    check_redefinitions(libraries, reporter)
    return libraries


def check_redefinitions(libraries: dict[str, list[SavedBlock]], reporter: Reporter) -> None:
    """Warn where a saved definition replaces an earlier one, naming both places; once for
    all frameworks when every library has it, else once per framework."""
    found: dict[tuple[str, Location, Location], list[str]] = {}
    for fw, blocks in libraries.items():
        for name, earlier, later in redefinitions(blocks):
            found.setdefault((name, earlier, later), []).append(fw)
    for (name, earlier, later), fws in found.items():
        message = f"{name} is defined again: this replaces its definition at {earlier}"
        places = (
            [later] if len(fws) == len(libraries) else [replace(later, framework=f) for f in fws]
        )
        for place in places:
            reporter.warn(place, message, "library.redefined")


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
