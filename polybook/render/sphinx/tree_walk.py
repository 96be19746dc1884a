"""docutils' walk of a tree (``Node.findall`` by class, or of every node) in one loop.

docutils walks a page's tree with one generator per node, each handing what it finds up
through every generator above it: on d2l-en, its transforms, Sphinx's and the writers walk
each page some forty times, and the handing up cost more than the matching. These walks
keep a stack of the children lists instead. They yield the same nodes in the same order,
and where a caller changes the tree as it walks, they read each list of children as
docutils' generators do: a node's children once it has been yielded, each list by its
current length.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from docutils import nodes

# docutils' own walks, kept for the tests that hold these to them.
DOCUTILS_MATCHING = nodes.Node._fast_findall
DOCUTILS_EVERY = nodes.Node._superfast_findall


def matching(root: nodes.Node, cls: type) -> Iterator[Any]:
    """``root`` and the nodes under it that are instances of ``cls``, in document order."""
    if isinstance(root, cls):
        yield root
    lists = [iter(root.children)]
    while lists:
        for child in lists[-1]:
            if isinstance(child, cls):
                yield child
            if child.children:
                lists.append(iter(child.children))
                break
        else:
            lists.pop()


def every(root: nodes.Node) -> Iterator[Any]:
    """``root`` and every node under it, in document order."""
    return matching(root, object)


def install() -> None:
    """docutils' ``findall`` walks with these, in this process."""
    nodes.Node._fast_findall = matching
    nodes.Node._superfast_findall = every
