"""Figure numbers kept when no page's numbered structure changed.

After each read, Sphinx numbers the book's figures, tables and code blocks again by walking
every page's doctree (d2l-en: 109 pages, about 40 % of a served edit's Sphinx time), though
a prose edit moves no number. Here, before the pages are read again, each page about to be
read has its *structure* noted: its sections' anchors and depth, its toctrees' entries, and
which of its nodes Sphinx numbers (kind and id). After the read, when every page read again
has the same structure, no page was added or removed, and the section numbers Sphinx has
just assigned (which are cheap) are those of the last build, the figure numbers cannot have
changed: the read pages get theirs back and the walk is skipped. Otherwise Sphinx numbers
as always. The log says which (``numbers kept`` / ``numbers assigned``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors.toctree import TocTreeCollector
from sphinx.util import logging

from polybook.render.sphinx.doctrees import DOCTREES

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


def structure(env: BuildEnvironment, doctree: nodes.Element) -> Structure:
    """What of a page its figure numbers depend on, in the order Sphinx walks it."""
    found: list[tuple[Any, ...]] = []

    def walk(node: nodes.Element, depth: int) -> None:
        for child in node.children:
            if isinstance(child, nodes.section):
                found.append(("section", depth, child["ids"][0] if child["ids"] else ""))
                walk(child, depth + 1)
                found.append(("end", depth))
            elif isinstance(child, addnodes.toctree):
                found.append(("toctree", tuple(ref for _, ref in child["entries"])))
            elif isinstance(child, nodes.Element):
                figtype = _figtype(env, child)
                if figtype and child["ids"]:
                    found.append((figtype, child["ids"][0]))
                walk(child, depth)

    walk(doctree, 0)
    return tuple(found)


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
        self.unknown = bool(added or removed) or len(changed) > MOST_PAGES
        if not self.unknown:
            for docname in changed:
                tree = DOCTREES.get(env, docname)
                self.before[docname] = (structure(env, tree), env.toc_fignumbers.get(docname))
        return []

    def reading(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """The pages read (another extension may have added some): each must be noted."""
        self.unknown = self.unknown or any(name not in self.before for name in docnames)

    def keep(self, env: BuildEnvironment, sections: Numbers) -> bool:
        """Whether the figure numbers of the last build hold (then the read pages have
        theirs back): ``sections``, the section numbers Sphinx just assigned."""
        if self.unknown or sections != getattr(env, "pb_raw_secnumbers", None):
            return False
        waiting: dict[str, nodes.document] = getattr(env, "_write_doc_doctree_cache", {})
        for docname, (before, _) in self.before.items():
            tree = waiting.get(docname) or DOCTREES.get(env, docname)
            if structure(env, tree) != before:
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
            return method(self, env)
        finally:
            env.pb_raw_secnumbers = sections  # type: ignore[attr-defined]  # pickled with env
            KEPT.before = {}

    assign_figure_numbers.__wrapped__ = method  # type: ignore[attr-defined]
    assign_figure_numbers.pb_kept = True  # type: ignore[attr-defined]
    return assign_figure_numbers


def setup(app: Sphinx) -> None:
    app.connect("env-get-outdated", KEPT.outdated)
    app.connect("env-before-read-docs", KEPT.reading, priority=900)  # after others add any
    method: Any = TocTreeCollector.assign_figure_numbers  # after doctrees.setup's wrapper
    if not hasattr(method, "pb_kept"):
        TocTreeCollector.assign_figure_numbers = _numbering(method)  # type: ignore[method-assign]
