"""Library stage: the ``#@save`` code of one framework, in book order -> ``d2l/<lib>.py``."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.library.model import SavedBlock
from polybook.library.saves import extract_blocks
from polybook.library.syntax import parse_code
from polybook.memo import memoised
from polybook.nb import Notebooks

if TYPE_CHECKING:
    from nbformat import NotebookNode


@dataclass(frozen=True)
class CompileError:
    """Why a block does not compile: plain data, which crosses between processes as it is
    (a ``SyntaxError`` pickles differently where ``tblib`` is installed, as Dask does)."""

    msg: str
    lineno: int | None

    @classmethod
    def of(cls, exc: SyntaxError) -> CompileError:
        return cls(str(exc.msg), exc.lineno)


# A framework's blocks, and each one's compile_error where known already.
Extracted = tuple[list[SavedBlock], Sequence[CompileError | None] | None]


def check_blocks(
    blocks: Sequence[SavedBlock],
    framework: str,
    compiled: Sequence[CompileError | None] | None = None,
) -> None:
    """Each block compiles, and every ``add_to_class`` target is saved before it is used.

    ``compiled`` is :func:`compile_error` of each block where the caller has it already.
    """
    defined: set[str] = set()
    for block in blocks:
        try:
            statements = block.statements
        except SyntaxError as exc:
            raise _syntax_error(block, CompileError.of(exc), framework) from exc
        for statement in statements:
            if statement.added_to and statement.added_to[0] not in defined:
                cls, line = statement.added_to
                raise PolybookError(
                    Location(block.path, block.source_line(line), framework),
                    f"add_to_class({cls}): {cls} is not saved earlier in book order",
                    "library.add_to_class",
                )
            defined.update(statement.names)
    if compiled is None:
        compiled = [compile_error(block.code) for block in blocks]
    for block, error in zip(blocks, compiled, strict=True):
        if error is not None:  # what parses may still not compile (`return` outside a def)
            raise _syntax_error(block, error, framework)


@memoised(8192)
def compile_error(code: str) -> CompileError | None:
    """Why ``code``, parsed, does not compile as part of the library; None if it does.

    Blocks compile on their own (once for the frameworks that share one): in the library a
    ``__future__`` import would follow the header, which Python refuses.
    """
    try:
        tree = parse_code(code)
    except SyntaxError as exc:
        return CompileError.of(exc)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            message = "from __future__ imports must occur at the beginning of the file"
            return CompileError(message, node.lineno)
    try:
        compile(tree, "<block>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return CompileError.of(exc)
    return None


def _syntax_error(block: SavedBlock, error: CompileError, framework: str) -> PolybookError:
    return PolybookError(
        Location(block.path, block.source_line(error.lineno or 1), framework),
        f"saved code does not compile: {error.msg}",
        "library.syntax",
    )


def public_names(blocks: Sequence[SavedBlock]) -> dict[str, SavedBlock]:
    """Names a library defines for its users (functions, classes, constants, methods as
    ``Class.method``), each with the first block that defines it."""
    names: dict[str, SavedBlock] = {}
    for block in blocks:
        for statement in block.statements:
            if statement.is_import:
                continue
            for name in sorted(statement.names | statement.methods):
                if not name.rpartition(".")[2].startswith("_") and name != "d2l":
                    names.setdefault(name, block)
    return names


def redefinitions(blocks: Sequence[SavedBlock]) -> list[tuple[str, Location, Location]]:
    """``(name, earlier place, later place)`` for each saved definition that replaces one
    made earlier in book order (imports aside: importing twice replaces nothing)."""
    seen: dict[str, Location] = {}
    found: list[tuple[str, Location, Location]] = []
    for block in blocks:
        for statement in block.statements:
            if statement.is_import:
                continue
            place = Location(block.path, block.source_line(statement.line))
            for name in sorted(statement.names | statement.methods):
                if name in seen and not seen[name].path.endswith(".py"):
                    found.append((name, seen[name], place))  # (not another tool's library)
                seen[name] = place
    return found


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


def extract_libraries(
    notebooks: Notebooks, reporter: Reporter, merge: Merge | None = None
) -> dict[str, list[SavedBlock]]:
    """Each framework's saved code, checked; a framework whose code fails is left out.

    A definition that replaces an earlier one is reported (``library.redefined``).
    """
    extract = {fw: functools.partial(_unchecked, nbs, fw) for fw, nbs in notebooks.items()}
    return checked_libraries(extract, reporter, merge)


def _unchecked(notebooks: Sequence[tuple[str, NotebookNode]], fw: str) -> Extracted:
    return extract_blocks(notebooks, fw), None


Merge = Callable[[str, list[SavedBlock]], list[SavedBlock]]  # a framework's, with others'


def checked_libraries(
    extract: Mapping[str, Callable[[], Extracted]],
    reporter: Reporter,
    merge: Merge | None = None,
) -> dict[str, list[SavedBlock]]:
    """Each framework's blocks, as ``extract`` gives them (and ``merge`` completes them: see
    :mod:`polybook.library.committed`), checked (:func:`check_blocks`); a framework whose
    code fails is left out, its error reported. Redefinitions are reported too."""
    libraries: dict[str, list[SavedBlock]] = {}
    for fw, blocks_of in extract.items():
        try:
            blocks, compiled = blocks_of()
            if merge is not None:
                known = dict(zip(map(id, blocks), compiled or (), strict=False))
                blocks = merge(fw, blocks)
                if compiled is not None:  # the borrowed blocks compile here
                    compiled = [known.get(id(b)) or compile_error(b.code) for b in blocks]
            check_blocks(blocks, fw, compiled)
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


def _defining_line(block: SavedBlock, name: str) -> int:
    """The page (or config) line of the statement in ``block`` that defines ``name``."""
    for statement in block.statements:
        if name in statement.names or name in statement.methods:
            return block.source_line(statement.line)
    return block.line


def check_parity(
    libraries: dict[str, list[SavedBlock]], allowed: Sequence[str], reporter: Reporter
) -> None:
    """Warn about public names some frameworks' libraries define and others lack."""
    if len(libraries) < 2:
        return
    for name, block, missing in parity_gaps(libraries, allowed):
        reporter.warn(
            Location(block.path, _defining_line(block, name)),
            f"{name} is not in the library of {', '.join(missing)} "
            "(declare it in [library] framework_specific)",
            "library.parity",
        )
