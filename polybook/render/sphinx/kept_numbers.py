"""Figure numbers from each page's numbered structure, noted as the page is read.

Sphinx numbers the book's figures, tables and code blocks after each read by unpickling and
walking every page's doctree: d2l-en's 196 doctrees, 2 s of a cold site's serial steps, and
about 40 % of a served edit's Sphinx time. Here each page's *structure* is noted as it is
read (in the read's worker): its sections' anchors and nesting, its toctrees' entries, and
which of its nodes Sphinx numbers (kind and id), in the order Sphinx walks them. Sphinx's
numbering then walks these structures, with its own rules, instead of the doctrees (a
page with no structure noted, from an environment written before, is walked as before).

A served edit goes further: when every page read again has the same structure, no page was
added or removed, and the section numbers Sphinx has just assigned (which are cheap) are
those of the last build, the figure numbers cannot have changed, and the read pages get
theirs back. The log says which (``numbers kept`` / ``numbers assigned``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains import Domain
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors.toctree import TocTreeCollector
from sphinx.util import logging, url_re

logger = logging.getLogger(__name__)
MOST_PAGES = 16  # more pages read again than this: Sphinx numbers (their walks cost as much)
Structure = tuple[tuple[Any, ...], ...]
Numbers = dict[str, dict[str, tuple[int, ...]]]


def _figtype(env: BuildEnvironment, node: nodes.Element) -> str | None:
    """The kind Sphinx numbers ``node`` as (its own test: a captionless node of the
    standard domain is not numbered), or None."""
    for domain in env.domains.sorted():
        figtype = domain.get_enumerable_node_type(node)
        if isinstance(domain, StandardDomain) and not domain.get_numfig_title(node):
            continue
        if figtype:
            return figtype
    return None


def _numbered_classes(env: BuildEnvironment) -> frozenset[type] | None:
    """The node classes some domain numbers, where every domain decides by a node's class
    (Sphinx's own domains do); None where one decides otherwise."""
    by_class = (Domain.get_enumerable_node_type, StandardDomain.get_enumerable_node_type)
    classes: set[type] = set()
    for domain in env.domains.sorted():
        if type(domain).get_enumerable_node_type not in by_class:
            return None
        classes.update(domain.enumerable_nodes)
    return frozenset(classes)


def structure(env: BuildEnvironment, doctree: nodes.Element) -> Structure:
    """What of a page its figure numbers depend on, in the order Sphinx walks it."""
    found: list[tuple[Any, ...]] = []
    classes = _numbered_classes(env)

    def walk(node: nodes.Element) -> None:
        for child in node.children:
            if isinstance(child, nodes.section):
                found.append(("section", child["ids"][0] if child["ids"] else ""))
                walk(child)
                found.append(("end",))
            elif isinstance(child, addnodes.toctree):
                found.append(("toctree", tuple(ref for _, ref in child["entries"])))
            elif isinstance(child, nodes.Element):
                numbered = classes is None or type(child) in classes
                figtype = _figtype(env, child) if numbered else None
                if figtype and child["ids"]:
                    found.append(("numbered", figtype, child["ids"][0]))
                walk(child)

    walk(doctree)
    return tuple(found)


def _structures(env: BuildEnvironment) -> dict[str, Structure]:
    """Each page's structure as last read (pickled with the environment)."""
    if not hasattr(env, "pb_structures"):
        env.pb_structures = {}  # type: ignore[attr-defined]
    found: dict[str, Structure] = env.pb_structures  # type: ignore[attr-defined]
    return found


def _noted(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    _structures(env)[env.docname] = structure(env, doctree)


def _purged(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _structures(env).pop(docname, None)


def _merged(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: Any) -> None:
    theirs = _structures(other)
    _structures(env).update({name: theirs[name] for name in docnames if name in theirs})


class _NotNoted(Exception):
    """A page to number has no structure noted: Sphinx walks the doctrees."""


def number_figures(env: BuildEnvironment) -> list[str]:
    """Sphinx's ``assign_figure_numbers``, walking the pages' structures: the pages whose
    figure numbers changed. Raises :class:`_NotNoted` where a page has none."""
    generated = frozenset(env.domains.standard_domain._virtual_doc_names)
    noted = _structures(env)
    depth = env.config.numfig_secnum_depth
    old, env.toc_fignumbers = env.toc_fignumbers, {}
    counters: dict[str, dict[tuple[int, ...], int]] = {}
    assigned: set[str] = set()

    def walk(docname: str, secnum: tuple[int, ...]) -> None:
        if docname in assigned:
            return
        assigned.add(docname)
        items = noted.get(docname)
        if items is None:
            raise _NotNoted(docname)
        secnumbers = env.toc_secnumbers.get(docname, {})
        above: list[tuple[int, ...]] = []
        for item in items:
            if item[0] == "section":
                above.append(secnum)
                anchor = "#" + item[1]
                here = secnumbers.get(anchor) if anchor in secnumbers else secnumbers.get("")
                secnum = here or secnum
            elif item[0] == "end":
                secnum = above.pop()
            elif item[0] == "toctree":
                for ref in item[1]:
                    if not (url_re.match(ref) or ref == "self" or ref in generated):
                        walk(ref, secnum)
            else:
                _, figtype, figure_id = item
                counter = counters.setdefault(figtype, {})
                key = secnum[:depth]
                counter[key] = counter.get(key, 0) + 1
                numbers = env.toc_fignumbers.setdefault(docname, {}).setdefault(figtype, {})
                numbers[figure_id] = (*key, counter[key])

    try:
        walk(env.config.root_doc, ())
    except _NotNoted:
        env.toc_fignumbers = old
        raise
    return [name for name, numbers in env.toc_fignumbers.items() if numbers != old.get(name)]


class KeptNumbers:
    """The pages of one build about to be read again: their structure and figure numbers
    before; whether the numbers may be kept."""

    def __init__(self) -> None:
        self.before: dict[str, tuple[Structure, Any]] = {}
        self.unknown = False  # a page added, removed, or too many read again

    def outdated(
        self,
        app: Sphinx,
        env: BuildEnvironment,
        added: set[str],
        changed: set[str],
        removed: set[str],
    ) -> list[str]:
        """Sphinx found what it reads again: note the structure of each changed page."""
        self.before = {}
        noted = _structures(env)
        self.unknown = (
            bool(added or removed)
            or len(changed) > MOST_PAGES
            or any(name not in noted for name in changed)  # an environment written before
        )
        if not self.unknown:
            for docname in changed:
                self.before[docname] = (noted[docname], env.toc_fignumbers.get(docname))
        return []

    def reading(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """The pages read (another extension may have added some): each must be noted."""
        self.unknown = self.unknown or any(name not in self.before for name in docnames)

    def keep(self, env: BuildEnvironment, sections: Numbers) -> bool:
        """Whether the figure numbers of the last build hold (then the read pages have
        theirs back): ``sections``, the section numbers Sphinx just assigned."""
        if self.unknown or sections != getattr(env, "pb_raw_secnumbers", None):
            return False
        noted = _structures(env)
        if any(noted.get(name) != before for name, (before, _) in self.before.items()):
            return False
        for docname, (_, numbers) in self.before.items():
            if numbers is not None:
                env.toc_fignumbers[docname] = numbers
        return True


KEPT = KeptNumbers()


def _numbering(method: Callable[..., list[str]]) -> Callable[..., list[str]]:
    """``TocTreeCollector.assign_figure_numbers`` (called once the sections are numbered):
    the walk only when a number may have moved."""

    def assign_figure_numbers(self: TocTreeCollector, env: BuildEnvironment) -> list[str]:
        sections = {name: dict(numbers) for name, numbers in env.toc_secnumbers.items()}
        try:
            if env.config.numfig and KEPT.keep(env, sections):
                logger.info("numbers kept: no page's numbered structure changed")
                return []
            logger.info("numbers assigned")
            if not env.config.numfig:  # (Sphinx's own clears the numbers)
                return method(self, env)
            try:
                return number_figures(env)
            except _NotNoted:
                return method(self, env)
        finally:
            env.pb_raw_secnumbers = sections  # type: ignore[attr-defined]  # pickled with env
            KEPT.before = {}

    assign_figure_numbers.__wrapped__ = method  # type: ignore[attr-defined]
    assign_figure_numbers.pb_kept = True  # type: ignore[attr-defined]
    return assign_figure_numbers


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", _noted, priority=900)  # after what changes the doctree
    app.connect("env-purge-doc", _purged)
    app.connect("env-merge-info", _merged)
    app.connect("env-get-outdated", KEPT.outdated)
    app.connect("env-before-read-docs", KEPT.reading, priority=900)  # after others add any
    method: Any = TocTreeCollector.assign_figure_numbers  # after doctrees.setup's wrapper
    if not hasattr(method, "pb_kept"):
        TocTreeCollector.assign_figure_numbers = _numbering(method)  # type: ignore[method-assign]
