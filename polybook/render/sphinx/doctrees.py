"""Doctrees read, not changed, kept unpickled in the Sphinx process.

Sphinx unpickles a page's whole doctree each time it looks something up in it: once per
``:numref:`` to a figure, table or equation of that page (to find the target's kind and
caption), and once per page each time it numbers the figures of the book. d2l-en has 870
such references; each unpickled a doctree (71 s of its site build). The two readers that
only read are given a doctree kept here, unpickled again only when Sphinx holds new bytes
for the page (it read the page again); every other reader still gets a fresh copy. In a
process kept warm by ``polybook serve``, an edit unpickles the edited page alone. Sphinx's
resolution of a page for writing, which changes its doctree, is handed the kept one (no
longer kept): a page is unpickled once per build, not twice.
"""

from __future__ import annotations

import contextlib
import pickle
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors.toctree import TocTreeCollector
from sphinx.util.docutils import LoggingReporter

KEPT = 256  # doctrees at most (d2l-en's pages: a few MB each at most)


class ReadOnlyDoctrees:
    """``env.get_doctree``, for readers that do not change what they get."""

    def __init__(self, size: int = KEPT) -> None:
        self.size = size
        self.kept: OrderedDict[str, tuple[bytes, nodes.document]] = OrderedDict()
        self.unpickled = 0

    def get(self, env: BuildEnvironment, docname: str) -> nodes.document:
        pickled: dict[str, bytes] | None = getattr(env, "_pickled_doctree_cache", None)
        serialised = pickled.get(docname) if pickled is not None else None
        if serialised is None:  # not read yet: Sphinx reads it (and keeps its bytes)
            tree = BuildEnvironment.get_doctree(env, docname)
            serialised = pickled.get(docname) if pickled is not None else None
            if serialised is None:
                return tree
            self._keep(docname, serialised, tree)
            return tree
        found = self.kept.get(docname)
        if found is not None and found[0] is serialised:
            self.kept.move_to_end(docname)
            return found[1]
        tree = pickle.loads(serialised)
        tree.settings.env = env
        tree.reporter = LoggingReporter(str(env.doc2path(docname)))
        self.unpickled += 1
        self._keep(docname, serialised, tree)
        return tree

    def give(self, env: BuildEnvironment, docname: str) -> None:
        """Hand the kept doctree of ``docname`` to Sphinx's next resolution of the page,
        which changes it (the page's last use in most builds): unpickled once, not twice.
        It is no longer kept; a later lookup unpickles the page again."""
        found = self.kept.pop(docname, None)
        pickled: dict[str, bytes] | None = getattr(env, "_pickled_doctree_cache", None)
        waiting: dict[str, nodes.document] | None = getattr(env, "_write_doc_doctree_cache", None)
        if found is None or pickled is None or waiting is None or docname in waiting:
            return
        if pickled.get(docname) is found[0]:  # not read again since
            waiting[docname] = found[1]

    def _keep(self, docname: str, serialised: bytes, tree: nodes.document) -> None:
        self.kept[docname] = (serialised, tree)
        self.kept.move_to_end(docname)
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)

    @contextlib.contextmanager
    def reading(self, env: BuildEnvironment) -> Iterator[None]:
        """``env.get_doctree`` answered from here while in the block."""
        env.get_doctree = lambda docname: self.get(env, docname)  # type: ignore[method-assign]
        try:
            yield
        finally:
            del env.get_doctree  # the class's again (and nothing extra is pickled)


DOCTREES = ReadOnlyDoctrees()


def _reading(method: Callable[..., Any], env_at: int) -> Callable[..., Any]:
    """``method``, its doctrees (``env`` is its argument ``env_at``) read from here."""

    def read_only(*args: Any, **kwargs: Any) -> Any:
        env = args[env_at]
        if "get_doctree" in vars(env):  # already inside such a call
            return method(*args, **kwargs)
        with DOCTREES.reading(env):
            return method(*args, **kwargs)

    read_only.__wrapped__ = method  # type: ignore[attr-defined]
    return read_only


def _forget(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    """A page about to be read again (or gone): its doctree's bytes and the kept doctree go.

    Sphinx keeps each doctree's bytes for the life of its environment, which a one-shot
    build loads anew; the process ``polybook serve`` keeps warm would otherwise go on
    reading a page's doctree as it was before the page was read again."""
    pickled: dict[str, bytes] | None = getattr(env, "_pickled_doctree_cache", None)
    if pickled is not None:
        pickled.pop(docname, None)
    DOCTREES.kept.pop(docname, None)


def _resolving(method: Callable[..., Any]) -> Callable[..., Any]:
    """``get_and_resolve_doctree``, given the page's kept doctree where there is one."""

    def resolve(env: BuildEnvironment, docname: str, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("doctree") is None:
            DOCTREES.give(env, docname)
        return method(env, docname, *args, **kwargs)

    resolve.__wrapped__ = method  # type: ignore[attr-defined]
    return resolve


def setup(app: Sphinx) -> None:
    """Give Sphinx's read-only doctree readers the kept doctrees (once per process)."""
    app.connect("env-purge-doc", _forget)
    resolve: Any = BuildEnvironment.get_and_resolve_doctree
    if not hasattr(resolve, "__wrapped__"):
        BuildEnvironment.get_and_resolve_doctree = _resolving(resolve)  # type: ignore[method-assign]
    numref: Any = StandardDomain._resolve_numref_xref
    if not hasattr(numref, "__wrapped__"):
        StandardDomain._resolve_numref_xref = _reading(numref, 1)  # type: ignore[method-assign]
    figures: Any = TocTreeCollector.assign_figure_numbers
    if not hasattr(figures, "__wrapped__"):
        TocTreeCollector.assign_figure_numbers = _reading(figures, 1)  # type: ignore[method-assign]
