"""A page's own frameworks: d2lbook's ``tab.interact_select(...)`` at the top of a page.

d2l's pages open with a cell ``%load_ext d2lbook.tab`` / ``tab.interact_select([...])``. The
frameworks it names are the page's: a page that selects ``["pytorch"]`` (reinforcement
learning, Gaussian processes) has no code for the others, so its ``%%tab all`` cells are
PyTorch's alone, and d2lbook neither runs nor shows the page's code for another framework.
polybook reads the selection the same way: each block keeps the page's frameworks only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from polybook.diagnostics import Location, PolybookError
from polybook.source.model import Block, CodeCell, TabProse

SELECT = re.compile(r"^\s*tab\.interact_select\((.*)\)\s*$")

Names = Callable[[str, Location], tuple[str, ...]]  # a spec's frameworks, validated


def _selected(arguments: str, where: Location) -> list[str]:
    """The names ``interact_select(...)``'s arguments give: strings, or lists of them."""
    try:
        call = ast.parse(f"f({arguments})", mode="eval").body
    except SyntaxError:
        call = None
    names: list[str] = []
    for arg in call.args if isinstance(call, ast.Call) and not call.keywords else [None]:
        items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else [arg]
        for item in items:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                message = "tab.interact_select(...) names frameworks as strings or a list of them"
                raise PolybookError(where, message, "parse.tab")
            names.append(item.value)
    return names


def page_frameworks(
    cells: Sequence[tuple[int, str]], path: str, names: Names
) -> tuple[str, ...] | None:
    """The frameworks the page's ``tab.interact_select`` names (in the first cell that
    holds one), validated by ``names``; None where no cell selects any. ``cells`` are the
    code cells' first line numbers and sources."""
    for first, source in cells:
        for offset, text in enumerate(source.split("\n")):
            found = SELECT.match(text)
            if found:
                where = Location(path, first + offset)
                return names(" ".join(_selected(found.group(1), where)), where)
    return None


def keep_page_frameworks(blocks: list[Block], selected: tuple[str, ...]) -> list[Block]:
    """``blocks`` with the frameworks of each cell and tab prose the page selects; a block
    left with none is dropped."""
    kept: list[Block] = []
    for block in blocks:
        if isinstance(block, CodeCell | TabProse):
            frameworks = tuple(f for f in block.frameworks if f in selected)
            if frameworks:
                kept.append(replace(block, frameworks=frameworks))
        else:
            kept.append(block)
    return kept
