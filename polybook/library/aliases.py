"""d2lbook's library aliases: names a book's config adds to a framework's library.

``[library-<tab>]`` holds them as d2lbook reads them:

- ``simple_alias``: ``name`` or ``name -> attr``, comma-separated, over any lines; each
  becomes ``name = <lib_name>.attr`` (``reshape``, ``concat -> cat``; d2lbook's ``exp(``
  is ``exp``);
- ``fluent_alias``: the same; each becomes ``name = lambda x, *args, **kwargs:
  x.attr(*args, **kwargs)`` (``numpy -> detach().numpy``);
- ``alias``: lines of code, as written (``nn_Module = nn.Module``).

Each goes right after the saved code that binds every name it reads (the framework's
imports), as a block placed at its config line: d2lbook appended them to the library, where
``class Module(d2l.nn_Module)`` above them could not see them. A notebook's library holds an
alias from that code's notebook on. An entry that does not make a line of Python is left out,
with a warning at its line.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from polybook.config import CONFIG_FILE, Book
from polybook.config.model import LibraryAliases
from polybook.diagnostics import Location, Reporter
from polybook.library.model import SavedBlock

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


class AliasEntry(NamedTuple):
    """One ``simple_alias`` or ``fluent_alias`` entry that makes a line of the library."""

    key: str
    name: str  # ``d2l.<name>``
    attr: str  # what it stands for: ``<lib_name>.<attr>``, or ``x.<attr>(…)``
    line: int  # its config line
    code: str  # its line of the library
    written: tuple[str, str]  # name and attr as d2lbook reads them (``exp(``: its call kept)


def written_pair(entry: str) -> tuple[str, str]:
    """``name -> attr`` as d2lbook reads it: split at its one arrow, else the entry twice."""
    parts = entry.split("->")
    if len(parts) == 2:
        return parts[0].strip(), parts[1].strip()
    return entry.strip(), entry.strip()


def alias_entries(aliases: LibraryAliases, section: str, reporter: Reporter) -> list[AliasEntry]:
    """The simple and fluent aliases that make a line of Python; the others are warned."""
    found: list[AliasEntry] = []
    for key, text, template in (
        ("simple_alias", aliases.simple_alias, "{name} = {module}.{attr}"),
        ("fluent_alias", aliases.fluent_alias, FLUENT),
    ):
        if text and key == "simple_alias" and not aliases.lib_name:
            message = "needs lib_name, the module its names point into: left out"
            _warn(aliases, section, key, 0, message, reporter)
            continue
        for entry, offset in entries(text):
            name, arrow, attr = (part.strip() for part in entry.partition("->"))
            if key == "simple_alias":  # d2lbook's ``exp(``: the name, where it is called
                name, attr = name.removesuffix("("), attr.removesuffix("(")
            code = template.format(name=name, module=aliases.lib_name, attr=attr or name)
            if not name.isidentifier() or (arrow and not attr) or not _compiles(code):
                message = f"{entry!r} does not make a line of Python: left out"
                _warn(aliases, section, key, offset, message, reporter)
                continue
            line = aliases.lines.get(key, 0) + offset
            found.append(AliasEntry(key, name, attr or name, line, code, written_pair(entry)))
    return found


def alias_lines(aliases: LibraryAliases, section: str, reporter: Reporter) -> list[tuple[str, int]]:
    """The code lines the aliases make, each with its config line; what cannot be is warned."""
    lines = [(e.code, e.line) for e in alias_entries(aliases, section, reporter)]
    for offset, line in enumerate(aliases.alias.splitlines()):
        code = line.strip()
        if code and not _compiles(code):
            message = f"{code!r} is not a line of Python: left out"
            _warn(aliases, section, "alias", offset, message, reporter)
        elif code:
            lines.append((code, aliases.lines.get("alias", 0) + offset))
    return lines


def _warn(
    aliases: LibraryAliases, section: str, key: str, offset: int, message: str, reporter: Reporter
) -> None:
    where = Location(CONFIG_FILE, aliases.lines.get(key, 0) + offset)
    reporter.warn(where, f"[{section}] {key}: {message}", "config.alias")


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


def _first_bound(blocks: Sequence[SavedBlock]) -> dict[str, int]:
    """Each name the blocks bind, with the position of the first block that binds it."""
    first: dict[str, int] = {}
    for position, block in enumerate(blocks):
        try:
            statements = block.statements
        except SyntaxError:
            continue
        for statement in statements:
            for name in statement.names:
                first.setdefault(name, position)
    return first


def place_aliases(
    aliases: LibraryAliases, section: str, blocks: Sequence[SavedBlock], reporter: Reporter
) -> list[SavedBlock]:
    """``blocks`` with each alias right after the code that binds what it reads (the
    framework's imports), so that saved code below may use it (``class
    Module(d2l.nn_Module)``); at the end where that code is missing. Aliases placed alike
    make one block, in the config's order."""
    lines = alias_lines(aliases, section, reporter)
    first = _first_bound(blocks) if lines else {}
    placed: dict[int | None, list[tuple[str, int]]] = {}  # after which block; None: never
    for code, line in lines:
        reads = _reads(code)
        after = max((first[n] for n in reads), default=-1) if reads <= first.keys() else None
        placed.setdefault(after, []).append((code, line))
    found = list(blocks)
    last = max((b.notebook for b in blocks), default=-1)
    for after in sorted(placed, key=lambda a: len(blocks) if a is None else a, reverse=True):
        group = placed[after]
        if after is None:  # what it reads is never bound: at the end, after every notebook
            position, notebook = len(blocks), last + 1
        else:
            position, notebook = after + 1, blocks[after].notebook if after >= 0 else -1
        code = "\n".join(code for code, _ in group)
        found.insert(position, SavedBlock(CONFIG_FILE, tuple(n for _, n in group), code, notebook))
    return found


def with_aliases(
    book: Book, libraries: Mapping[str, list[SavedBlock]], reporter: Reporter
) -> dict[str, list[SavedBlock]]:
    """``libraries`` with each framework's aliases placed in its saved code."""
    return {
        fw: place_aliases(book.library_for(fw).aliases, f"library-{fw}", blocks, reporter)
        for fw, blocks in libraries.items()
    }
