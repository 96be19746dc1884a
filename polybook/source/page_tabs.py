"""A page's frameworks, as d2lbook reads them: those its cells and tab prose name.

d2lbook makes a page's notebook for a framework other than the book's first only where one
of the page's code cells (``%%tab mxnet, jax``) or ``:begin_tab:`` blocks names it: its
``%%tab all`` cells are shared by the frameworks the page names (and the first), not by
every framework of the book. d2l-en's anchor boxes page names MXNet and PyTorch, so its
``%%tab all`` cells are theirs; its reinforcement-learning pages name none (``%%tab all``
throughout, after d2lbook's ``%load_ext d2lbook.tab`` cell), so they are PyTorch's alone.
A page that names no framework and carries no such d2lbook cell is shared by every
framework of the book, as polybook's own pages are.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from polybook.source.model import Block, CodeCell, TabProse


def page_frameworks(
    tabs: tuple[str, ...], named: Collection[str], d2lbook: bool
) -> tuple[str, ...]:
    """The page's frameworks: the first of ``tabs`` and those ``named``; every one of
    ``tabs`` where none is named and the page is not a d2lbook page (``d2lbook``)."""
    if not named and not d2lbook:
        return tabs
    return tuple(t for t in tabs if t in named or t == tabs[0])


def keep_page_frameworks(blocks: list[Block], selected: tuple[str, ...]) -> list[Block]:
    """``blocks`` with the frameworks of each cell and tab prose the page has; a block
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
