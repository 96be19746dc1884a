"""docutils' walks of a tree in one loop (``render.sphinx.tree_walk``) find what docutils'
own generators find, in the same order, when the caller changes the tree as it walks too."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from docutils import nodes
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.render.sphinx import tree_walk

KINDS = (nodes.paragraph, nodes.emphasis, nodes.section, nodes.reference, nodes.math)
Walk = Callable[..., Iterator[Any]]


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> nodes.Element:
    """A tree of elements and text, each node named by a number in its text or ids."""
    kind = draw(st.sampled_from(KINDS))
    node = kind(ids=[f"n{draw(st.integers(0, 10**6))}"])
    for _ in range(draw(st.integers(0, 0 if depth > 3 else 4))):
        if draw(st.booleans()):
            node += nodes.Text(f"t{draw(st.integers(0, 99))}")
        else:
            node += draw(trees(depth=depth + 1))
    return node


# What a caller does with a node it was handed: nothing, or change the tree around it.
EDITS = ("none", "remove", "insert_after", "replace", "clear_children", "add_child")


def _edit(node: nodes.Node, edit: str) -> None:
    parent = node.parent
    if edit == "remove" and parent is not None:
        parent.remove(node)
    elif edit == "insert_after" and parent is not None:
        parent.insert(parent.index(node) + 1, nodes.emphasis(ids=["inserted"]))
    elif edit == "replace" and parent is not None:
        parent.replace(node, nodes.strong(ids=["replacement"]))
    elif edit == "clear_children" and isinstance(node, nodes.Element):
        node.children = []
    elif edit == "add_child" and isinstance(node, nodes.Element):
        node += nodes.math(ids=["added"])


def _walked(tree: nodes.Element, walk: Walk, cls: type | None, edits: list[str]) -> list[str]:
    """What ``walk`` yields (by name), each node edited as ``edits`` say, in turn."""
    seen = []
    found = walk(tree, cls) if cls is not None else walk(tree)
    for n, node in enumerate(found):
        named = isinstance(node, nodes.Element)
        seen.append(node.get("ids", [""])[0] if named else str(node))
        _edit(node, edits[n % len(edits)])
        if n > 500:
            break
    return seen


@settings(max_examples=600, deadline=None)
@given(
    trees(),
    st.sampled_from((None, *KINDS, nodes.Element, nodes.Text, nodes.Node)),
    st.lists(st.sampled_from(EDITS), min_size=1, max_size=6),
)
def test_a_walk_finds_what_docutils_finds_as_the_tree_changes(
    tree: nodes.Element, cls: type | None, edits: list[str]
) -> None:
    ours: Walk
    theirs: Walk
    if cls is None:
        ours, theirs = tree_walk.every, tree_walk.DOCUTILS_EVERY
    else:
        ours, theirs = tree_walk.matching, tree_walk.DOCUTILS_MATCHING
    installed = (nodes.Node._fast_findall, nodes.Node._superfast_findall)
    try:  # docutils' generators call themselves on each child: its own, here
        nodes.Node._fast_findall = tree_walk.DOCUTILS_MATCHING
        nodes.Node._superfast_findall = tree_walk.DOCUTILS_EVERY
        expected = _walked(copy.deepcopy(tree), theirs, cls, edits)
    finally:
        nodes.Node._fast_findall, nodes.Node._superfast_findall = installed
    assert _walked(copy.deepcopy(tree), ours, cls, edits) == expected


def test_installed_findall_walks_with_them() -> None:
    tree = nodes.section(ids=["s"])
    tree += nodes.paragraph("", "a", nodes.emphasis("", "b"))
    before = (nodes.Node._fast_findall, nodes.Node._superfast_findall)
    try:
        tree_walk.install()
        assert [n.astext() for n in tree.findall(nodes.emphasis)] == ["b"]
        assert len(list(tree.findall())) == 5
        assert nodes.Node._fast_findall is tree_walk.matching
    finally:
        nodes.Node._fast_findall, nodes.Node._superfast_findall = before
