"""Which code cell of one notebook is which of the other: nbdime's notebook diff lines up
cells by their code (inserted, removed and edited cells included), outputs left out, so
that a changed output never unpairs a cell; code is read without its comments and layout,
so that an edited comment is the same cell."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Pair:
    """Positions of one cell in both lists (None: only on the other side)."""

    before: int | None
    after: int | None
    edited: bool = False  # paired, but its code changed


def code_key(source: str) -> str:
    """A cell's code without comments and layout (its text, where it is not plain Python)."""
    try:
        return ast.unparse(ast.parse(source))
    except (SyntaxError, ValueError):
        return source


def _notebook(keys: Sequence[str]) -> Any:
    import nbformat

    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "source": key, "metadata": {}, "execution_count": None, "outputs": []}
        for key in keys
    ]
    notebook = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": cells}
    return nbformat.from_dict(notebook)  # type: ignore[no-untyped-call]


def align(before: Sequence[str], after: Sequence[str]) -> list[Pair]:
    """The cells of two notebooks paired, given each cell's code (or a digest of it)."""
    if list(before) == list(after):
        return [Pair(i, i) for i in range(len(before))]
    from nbdime.diffing.notebooks import diff_notebooks

    ops: list[dict[str, Any]] = []
    for entry in diff_notebooks(_notebook(before), _notebook(after)):
        if entry["key"] == "cells":
            ops = list(entry["diff"])
    pairs: list[Pair] = []
    old = new = 0

    def same_until(stop: int) -> None:
        nonlocal old, new
        while old < stop:
            pairs.append(Pair(old, new))
            old, new = old + 1, new + 1

    for op in ops:  # sorted by position in ``before``; an insertion comes first at one
        same_until(int(op["key"]))
        if op["op"] == "addrange":
            for _ in op["valuelist"]:
                pairs.append(Pair(None, new))
                new += 1
        elif op["op"] == "removerange":
            for _ in range(int(op["length"])):
                pairs.append(Pair(old, None))
                old += 1
        elif op["op"] == "patch":
            pairs.append(Pair(old, new, edited=True))
            old, new = old + 1, new + 1
    same_until(len(before))
    return pairs
