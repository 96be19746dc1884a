"""Whether a ``_freeze/`` entry is of this notebook's code, and if not, what changed.

An entry records its key's format (:mod:`polybook.library.canonical`; none recorded: format
1). An entry of this format matches by its key. One of format 1 was keyed by ``ast.dump``,
whose text depends on the Python that froze it: its key is made again as each Python made it,
and when one matches, the entry is re-keyed (shown; ``polybook freeze --rekey`` stores the
new key), never called stale. When none matches, the message says what changed: a cell's
code (at that cell), the cells, the library code the notebook uses, or a cell's needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nbformat import NotebookNode

from polybook.diagnostics import Location
from polybook.execution.cache import CacheKey
from polybook.layout import FREEZE_DIR
from polybook.library.canonical import KEY_FORMAT, LEGACY_DIALECTS
from polybook.library.usage import LibraryUsage, cell_digest
from polybook.meta import cell_meta

# the code key of the notebook in key format 1 as the Python ``dialect`` made it
Legacy = Callable[[str], CacheKey]


def legacy_key(nb: NotebookNode, framework: str, usage: LibraryUsage, figures: str) -> Legacy:
    """``nb``'s code key in format 1 as each Python made it."""
    return lambda dialect: CacheKey.of(nb, framework, usage.key(nb, dialect), figures, dialect)


@dataclass(frozen=True)
class KeyMatch:
    """An entry's match: ``shown``; ``dialect``: re-keyed from format 1 as that Python made
    it; else where, and the message saying what changed."""

    shown: bool
    dialect: str = ""
    where: Location | None = None
    message: str = ""


def key_format(entry: dict[str, Any]) -> int:
    try:
        return int(entry.get("key_format", 1))
    except (TypeError, ValueError):
        return 0


def match(
    entry: dict[str, Any], nb: NotebookNode, place: tuple[str, str], code: CacheKey, legacy: Legacy
) -> KeyMatch:
    """Whether ``entry`` holds the outputs of ``nb`` (at ``place``: page, framework), whose
    code key is ``code``."""
    page, framework = place
    stored = key_format(entry)
    if stored == KEY_FORMAT:
        if entry.get("code") == code.digest:
            return KeyMatch(True)
        return _changed(entry, nb, place, "", code)
    if stored != 1:
        why = f"the frozen outputs in {FREEZE_DIR}/ are keyed in format"
        why += f" {entry.get('key_format')!r}, which this polybook does not read (it writes"
        why += f" format {KEY_FORMAT}); they are not shown (update polybook, or freeze again)"
        return KeyMatch(False, where=Location(page, 0, framework), message=why)
    for dialect in LEGACY_DIALECTS:
        if legacy(dialect).digest == entry.get("code"):
            return KeyMatch(True, dialect=dialect)
    frozen = [str(c.get("code", "")) for c in entry.get("cells", [])]
    cells = [c.source for c in nb.cells if c.cell_type == "code"]

    def same(dialect: str) -> int:
        return sum(f == cell_digest(s, dialect) for f, s in zip(frozen, cells, strict=False))

    return _changed(entry, nb, place, max(LEGACY_DIALECTS, key=same), None)


def _changed(
    entry: dict[str, Any],
    nb: NotebookNode,
    place: tuple[str, str],
    dialect: str,
    code: CacheKey | None,
) -> KeyMatch:
    """What changed since ``entry`` was frozen: the first cell whose code differs (its key in
    format 1 as ``dialect`` made it, or this format), else the cells, else the rest of the
    key (``code``: this notebook's, for an entry that records the parts of its key)."""
    page, framework = place
    frozen = [str(c.get("code", "")) for c in entry.get("cells", [])]
    cells = [c for c in nb.cells if c.cell_type == "code"]
    for number, cell in enumerate(cells, start=1):
        if number <= len(frozen) and frozen[number - 1] != cell_digest(cell.source, dialect):
            where = Location(page, cell_meta(cell).line, framework, number)
            return KeyMatch(
                False, where=where, message=_stale(page, "the code of this cell changed", entry)
            )
    if len(frozen) != len(cells):
        what = "removed" if len(frozen) > len(cells) else "added"
        where = Location(page, 0, framework)
        return KeyMatch(False, where=where, message=_stale(page, f"cells were {what}", entry))
    if code is None or entry.get("library", code.library) != code.library:
        why = "the library code it uses changed"
        why += "" if code is not None else " (or a cell's needs or time limit)"
    elif entry.get("figures", code.figures) != code.figures:
        why = "[html] figure_format changed"
    else:
        why = "a cell's needs or time limit changed"
    return KeyMatch(False, where=Location(page, 0, framework), message=_stale(page, why, entry))


def _stale(page: str, why: str, entry: dict[str, Any]) -> str:
    run = entry.get("run", {})
    gpu = isinstance(run, dict) and run.get("device_class", "cuda") != "cpu"
    rerun = f"build it{' on a GPU host' if gpu else ''}, then run `polybook freeze {page}`"
    message = f"the frozen outputs in {FREEZE_DIR}/ are stale: {why} since they were frozen"
    return f"{message}; they are not shown ({rerun})"
