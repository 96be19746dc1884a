"""``:numref:`` resolved from the targets noted as each page is read, not its doctree.

To resolve ``:numref:`fig-x```, Sphinx unpickles the whole doctree of the page that holds
``fig-x`` to look at one node: its class (the kind of number) and its first id (the number's
key). A writer process of a cold site starts with no doctree unpickled, so each unpickled
again every page its pages refer to (d2l-en: 870 references). Here, as each page is read
(in the read's worker), its named targets are noted as stand-ins: each node's class and
attributes, without its children. The lookup is answered from them; a label not noted (an
environment written before) reads the doctree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment

from polybook.render.sphinx.doctrees import DOCTREES

Targets = dict[str, nodes.Element]  # a page's: label id -> its stand-in


def _noted(env: BuildEnvironment) -> dict[str, Targets]:
    """Each page's stand-ins as last read (pickled with the environment)."""
    if not hasattr(env, "pb_numref_targets"):
        env.pb_numref_targets = {}  # type: ignore[attr-defined]
    found: dict[str, Targets] = env.pb_numref_targets  # type: ignore[attr-defined]
    return found


def stand_in(node: nodes.Element) -> nodes.Element:
    """``node`` as the lookup sees it: its class and attributes, without its children."""
    return node.__class__(rawsource="", **node.attributes)


def _read(app: Sphinx, doctree: nodes.document) -> None:
    """Note the page's named targets (those its labels name among them), read from the
    page alone: not the book's labels, which grow with the book."""
    targets: Targets = {}
    for labelid in doctree.nameids.values():
        node = doctree.ids.get(labelid) if labelid else None
        if isinstance(node, nodes.Element):
            targets[labelid] = stand_in(node)
    _noted(app.env)[app.env.docname] = targets


def _purged(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _noted(env).pop(docname, None)


def _merged(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: Any) -> None:
    theirs = _noted(other)
    _noted(env).update({name: theirs[name] for name in docnames if name in theirs})


class _Ids(dict[str, nodes.Element]):
    """A page's stand-ins by id; an id not noted is looked up in the page's doctree."""

    def __init__(self, targets: Targets, doctree: Callable[[], nodes.document]) -> None:
        super().__init__(targets)
        self.doctree = doctree

    def get(self, key: str, default: Any = None) -> Any:
        found = super().get(key)
        return found if found is not None else self.doctree().ids.get(key, default)


class _Page:
    """What the lookup reads of a page's doctree: its ``ids``."""

    def __init__(self, ids: _Ids) -> None:
        self.ids = ids


def _resolving(method: Callable[..., Any]) -> Callable[..., Any]:
    """``StandardDomain._resolve_numref_xref``, its target's page answered by stand-ins
    (a label not noted: the kept doctree, :mod:`.doctrees`)."""

    def resolve(self: StandardDomain, env: BuildEnvironment, *args: Any, **kwargs: Any) -> Any:
        noted = _noted(env)

        def page(docname: str) -> Any:
            targets = noted.get(docname)
            if targets is None:
                return DOCTREES.get(env, docname)
            return _Page(_Ids(targets, lambda: DOCTREES.get(env, docname)))

        before = vars(env).get("get_doctree")
        env.get_doctree = page  # type: ignore[method-assign]
        try:
            return method(self, env, *args, **kwargs)
        finally:
            if before is None:
                del env.get_doctree  # the class's again (nothing extra is pickled)
            else:
                env.get_doctree = before  # type: ignore[method-assign]

    resolve.__wrapped__ = method  # type: ignore[attr-defined]
    resolve.pb_targets = True  # type: ignore[attr-defined]
    return resolve


def setup(app: Sphinx) -> None:
    """Note each page's labelled targets as it is read; resolve ``:numref:`` from them."""
    app.connect("doctree-read", _read, priority=900)  # after the domains note the labels
    app.connect("env-purge-doc", _purged)
    app.connect("env-merge-info", _merged)
    numref: Any = StandardDomain._resolve_numref_xref
    if not hasattr(numref, "pb_targets"):
        StandardDomain._resolve_numref_xref = _resolving(numref)  # type: ignore[method-assign]
