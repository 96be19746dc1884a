"""d2lbook's library aliases: names a book's config adds to a framework's library.

``[library-<tab>]`` holds them as d2lbook reads them:

- ``simple_alias``: ``name`` or ``name -> attr``, comma-separated, over any lines; each
  becomes ``name = <lib_name>.attr`` (``reshape``, ``concat -> cat``);
- ``fluent_alias``: the same; each becomes ``name = lambda x, *args, **kwargs:
  x.attr(*args, **kwargs)`` (``numpy -> detach().numpy``);
- ``alias``: lines of code, as written (``nn_Module = nn.Module``).

They make one block, after the saved code as in d2lbook's libraries, placed at the config
lines it comes from. A notebook's library holds the block from the first notebook whose saved
code binds every name the block reads (the framework's imports). An entry that does not make
a line of Python is left out, with a warning at its line.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping, Sequence

from polybook.config import CONFIG_FILE, BookConfig
from polybook.config.model import LibraryAliases
from polybook.diagnostics import Location, Reporter
from polybook.saved import SavedBlock

FLUENT = "{name} = lambda x, *args, **kwargs: x.{attr}(*args, **kwargs)"


def entries(text: str) -> list[tuple[str, int]]:
    """The comma-separated entries of ``text``, each with its line's offset in the value."""
    found: list[tuple[str, int]] = []
    for offset, line in enumerate(text.splitlines()):
        found.extend((term.strip(), offset) for term in line.split(",") if term.strip())
    return found


def _compiles(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def alias_lines(aliases: LibraryAliases, section: str, reporter: Reporter) -> list[tuple[str, int]]:
    """The code lines the aliases make, each with its config line; what cannot be is warned."""
    lines: list[tuple[str, int]] = []

    def warn(key: str, offset: int, message: str) -> None:
        where = Location(CONFIG_FILE, aliases.lines.get(key, 0) + offset)
        reporter.warn(where, f"[{section}] {key}: {message}", "config.alias")

    for key, text, template in (
        ("simple_alias", aliases.simple, "{name} = {module}.{attr}"),
        ("fluent_alias", aliases.fluent, FLUENT),
    ):
        if text and key == "simple_alias" and not aliases.module:
            warn(key, 0, "needs lib_name, the module its names point into: left out")
            continue
        for entry, offset in entries(text):
            name, arrow, attr = (part.strip() for part in entry.partition("->"))
            code = template.format(name=name, module=aliases.module, attr=attr or name)
            if not name.isidentifier() or (arrow and not attr) or not _compiles(code):
                warn(key, offset, f"{entry!r} does not make a line of Python: left out")
                continue
            lines.append((code, aliases.lines.get(key, 0) + offset))
    for offset, line in enumerate(aliases.verbatim.splitlines()):
        code = line.strip()
        if code and not _compiles(code):
            warn("alias", offset, f"{code!r} is not a line of Python: left out")
        elif code:
            lines.append((code, aliases.lines.get("alias", 0) + offset))
    return lines


def _reads(code: str) -> set[str]:
    """Names ``code`` reads at import time from the module (not a lambda's own)."""
    tree = ast.parse(code)
    bound = {a.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for a in _args(node)}
    loads = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return loads - bound - set(dir(builtins))


def _args(node: ast.Lambda) -> list[ast.arg]:
    args = node.args
    rest = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *rest]


def _first_notebook(reads: set[str], blocks: Sequence[SavedBlock]) -> int:
    """The first notebook from which ``blocks`` bind every name in ``reads`` (-1: from the
    start; past the last notebook when they never do)."""
    missing = set(reads)
    last = -1
    for block in sorted(blocks, key=lambda b: b.notebook):
        if not missing:
            break
        try:
            statements = block.statements
        except SyntaxError:
            continue
        bound = {name for s in statements for name in s.names}
        if missing & bound:
            missing -= bound
            last = block.notebook
    return last if not missing else max((b.notebook for b in blocks), default=-1) + 1


def alias_block(
    aliases: LibraryAliases, section: str, blocks: Sequence[SavedBlock], reporter: Reporter
) -> SavedBlock | None:
    """The aliases of one framework as a block of its library, or None when there are none."""
    lines = alias_lines(aliases, section, reporter)
    if not lines:
        return None
    code = "\n".join(code for code, _ in lines)
    notebook = _first_notebook(_reads(code), blocks)
    return SavedBlock(CONFIG_FILE, tuple(line for _, line in lines), code, notebook)


def with_aliases(
    config: BookConfig, libraries: Mapping[str, list[SavedBlock]], reporter: Reporter
) -> dict[str, list[SavedBlock]]:
    """``libraries`` with each framework's aliases after its saved code."""
    found = {}
    for fw, blocks in libraries.items():
        block = alias_block(config.library_for(fw).aliases, f"library-{fw}", blocks, reporter)
        found[fw] = [*blocks, block] if block is not None else list(blocks)
    return found
