"""Code as readers see and run it: d2lbook's aliases replaced by what they stand for.

A d2lbook book writes ``%%tab all`` code once against the library (``d2l.reshape(X, s)``,
``d2l.ones(3)``); each framework's notebook shows and runs that framework's own code where
d2lbook's do, and only there. As d2lbook's ``replace_alias``, in order:

- ``reverse_alias``: ``text -> replacement``, one a line, replaced as written, not as a
  regular expression (d2l-en's ``d2l.size\\((…)\\) -> \\1.size`` never matches: its pages
  keep ``d2l.size(X)``, which the library's ``alias`` defines);
- ``simple_alias``: the text ``d2l.<name>`` becomes ``<lib_name>.<attr>`` wherever it
  stands, in strings and comments too, and where it begins a longer name (``ones`` makes
  ``d2l.onesies`` ``torch.onesies``); ``exp(`` matches ``d2l.exp(`` alone;
- ``fluent_alias``: the call ``d2l.reshape(X, s)`` becomes ``X.reshape(s)``, found in the
  syntax tree and edited in the text, so a cell keeps its lines and its comments.

Without ``lib_name`` neither alias list is applied, as in d2lbook. A cell that does not
parse keeps its fluent calls. The library keeps the code as saved: it defines the aliases.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from polybook.config import CONFIG_FILE, Book
from polybook.config.model import LibraryAliases
from polybook.diagnostics import Location, Reporter
from polybook.library.aliases import alias_entries, written_pair
from polybook.memo import HeldMemo, Memo
from polybook.nb import Notebooks, copy_notebook

if TYPE_CHECKING:
    from nbformat import NotebookNode

LIBRARY = "d2l"
MAGIC_LINE = re.compile(r"^[ \t]*[%!].*$", re.M)
ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)  # take ``.attr`` as they are


# Cells' code rewritten, by their code and the aliases (serve's rebuilds rewrite each once).
_REWRITTEN: Memo[str] = Memo(65536)
# Each notebook rewritten, by the very notebook (an unchanged page's is the last build's) and
# the aliases: a rebuild does not look at an unchanged page's cells again.
_NOTEBOOKS: HeldMemo[NotebookNode] = HeldMemo(65536)


@dataclass(frozen=True)
class Rewriter:
    """One framework's aliases, ready to apply to code."""

    texts: tuple[tuple[str, str], ...] = ()  # (text, replacement): reverse, then simple
    fluent: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.texts or self.fluent)

    @property
    def key(self) -> str:
        """What the aliases are, as a memo's key."""
        return repr((self.texts, sorted(self.fluent.items())))

    def rewrite(self, code: str) -> str:
        """``code`` with the aliases replaced (its fluent calls kept where it does not parse);
        once per code and aliases while the process lives (``polybook serve``'s rebuilds)."""
        key = (self.texts, tuple(sorted(self.fluent.items())), code)
        return _REWRITTEN.value(key, lambda: self._rewritten(code))

    def _rewritten(self, code: str) -> str:
        for text, replacement in self.texts:
            code = code.replace(text, replacement)
        if not self.fluent or f"{LIBRARY}." not in code or not self._named.search(code):
            return code
        for _ in range(code.count(f"{LIBRARY}.")):  # one edit a round, the innermost first
            edit = self._next_edit(code)
            if edit is None:
                break
            start, end, text = edit
            code = code[:start] + text + code[end:]
        return code

    @functools.cached_property
    def _named(self) -> re.Pattern[str]:
        """``d2l.<a fluent name>`` as Python may write it (spaces, lines, comments between
        the parts): a cell without it has no call to rewrite, and is not parsed."""
        between = r"(?:[\s\\]|#[^\n]*)*"
        names = "|".join(map(re.escape, sorted(self.fluent)))
        return re.compile(rf"\b{LIBRARY}{between}\.{between}(?:{names})\b")

    def _next_edit(self, code: str) -> tuple[int, int, str] | None:
        try:  # IPython lines blanked: the others keep their places
            tree = ast.parse(MAGIC_LINE.sub("", code))
        except SyntaxError:
            return None
        offsets = _Offsets(code)
        found: list[tuple[int, int, str]] = []
        for node in ast.walk(tree):
            edit = self._edit(node, code, offsets)
            if edit is not None:
                found.append(edit)
        return max(found, default=None)  # the last to start: nested in any other

    def _edit(self, node: ast.AST, code: str, at: _Offsets) -> tuple[int, int, str] | None:
        if not isinstance(node, ast.Call) or _library_attribute(node.func) not in self.fluent:
            return None
        if not node.args or isinstance(node.args[0], ast.Starred):
            return None
        name = _library_attribute(node.func)
        first = node.args[0]
        receiver = code[at.start(first) : at.end(first)]
        if not isinstance(first, ATOMS):
            receiver = f"({receiver})"
        # ``d2l.reduce_sum((X * K))``: the argument's own parentheses close before the rest.
        after = at.end(first)
        for _ in range(code[at.end(node.func) : at.start(first)].count("(") - 1):
            after = code.index(")", after) + 1
        rest = code[after : at.end(node) - 1].lstrip(" \t")
        rest = rest.removeprefix(",").lstrip(" \t") if rest.startswith(",") else rest
        return at.start(node), at.end(node), f"{receiver}.{self.fluent[str(name)]}({rest})"


def _library_attribute(node: ast.AST) -> str | None:
    """``attr`` of ``d2l.attr``, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == LIBRARY else None
    return None


class _Offsets:
    """A node's start and end as indices into the text (the tree counts UTF-8 bytes)."""

    def __init__(self, code: str) -> None:
        self.lines = code.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def _index(self, line: int, column: int) -> int:
        text = self.lines[line - 1].encode("utf-8")[:column].decode("utf-8", "replace")
        return self.starts[line - 1] + len(text)

    def start(self, node: ast.AST) -> int:
        return self._index(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self._index(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def rewriter(aliases: LibraryAliases, section: str, reporter: Reporter) -> Rewriter:
    """The rewriter of one ``[library-<tab>]`` section: its ``reverse_alias`` lines and the
    aliases the library holds (see :mod:`polybook.library.aliases`); a ``reverse_alias``
    line with nothing to replace is warned, left out."""
    texts = []
    for offset, line in enumerate(aliases.reverse_alias.splitlines()):
        if not line.strip():
            continue
        text, replacement = written_pair(line)
        if not text:
            where = Location(CONFIG_FILE, aliases.lines.get("reverse_alias", 0) + offset)
            message = f"[{section}] reverse_alias: {line.strip()!r} names no text to replace"
            reporter.warn(where, f"{message}: left out", "config.alias")
            continue
        texts.append((text, replacement))
    found = alias_entries(aliases, section, reporter) if aliases.lib_name else []
    for entry in found:
        if entry.key == "simple_alias":
            name, attr = entry.written
            texts.append((f"{LIBRARY}.{name}", f"{aliases.lib_name}.{attr}"))
    fluent = {e.name: e.attr for e in found if e.key == "fluent_alias"}
    return Rewriter(tuple(texts), fluent)


def rewriters(book: Book, tabs: Sequence[str], reporter: Reporter) -> dict[str, Rewriter]:
    return {fw: rewriter(book.library_for(fw).aliases, f"library-{fw}", reporter) for fw in tabs}


def rewrite_notebook(nb: NotebookNode, rewrite: Rewriter) -> NotebookNode:
    """``nb``, or a copy with its code cells rewritten where an alias is used."""
    changed = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            new = rewrite.rewrite(cell.source)
            if new != cell.source:
                changed[index] = new
    if not changed:
        return nb
    nb = copy_notebook(nb)
    for index, source in changed.items():
        nb.cells[index].source = source
    return nb


def rewrite_notebooks(book: Book, notebooks: Notebooks, reporter: Reporter) -> Notebooks:
    """Each framework's notebooks with its aliases replaced (see the module's text); the
    same notebook for the same notebook and aliases (:data:`_NOTEBOOKS`)."""
    found = rewriters(book, tuple(notebooks), reporter)
    keys = {fw: rewrite.key for fw, rewrite in found.items()}

    def rewritten(nb: NotebookNode, fw: str) -> NotebookNode:
        rewrite = found[fw]
        return _NOTEBOOKS.get((nb,), keys[fw], lambda _: rewrite_notebook(nb, rewrite), reporter)

    return {
        fw: [(path, rewritten(nb, fw)) for path, nb in nbs] if found[fw] else nbs
        for fw, nbs in notebooks.items()
    }
