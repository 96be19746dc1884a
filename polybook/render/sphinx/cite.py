"""Citations: ``{cite:p}`` and ``{cite:t}`` (from d2l's ``:cite:``, ``:citet:``) are
sphinxcontrib-bibtex's, in author-year style with round brackets, as d2l prints them; a book
without a bibliography shows the keys, with a located warning each, and so does a citation
of a key the bibliography lacks (sphinxcontrib-bibtex warns, and would show empty brackets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from polybook.render.names import CITE_STYLE

logger = logging.getLogger(__name__)


class KeysRole(SphinxRole):
    """A citation shown as its keys, for a book that names no BibTeX file."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        keys = ", ".join(k.strip() for k in self.text.split(","))
        message = "citations are shown as keys: no bibliography is configured ([project] bibfile)"
        logger.warning(message, location=self.get_location(), type="cite")
        return [nodes.inline("", f"[{keys}]", classes=["pb-cite-keys"])], []


def _register_round_style() -> None:
    from sphinxcontrib.bibtex.plugin import register_plugin
    from sphinxcontrib.bibtex.style.referencing import BracketStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    def round_brackets() -> BracketStyle:
        return BracketStyle(left="(", right=")")

    @dataclass
    class RoundAuthorYear(AuthorYearReferenceStyle):
        """(Paszke et al., 2019) and Paszke et al. (2019)."""

        bracket_parenthetical: BracketStyle = field(default_factory=round_brackets)
        bracket_textual: BracketStyle = field(default_factory=round_brackets)
        bracket_author: BracketStyle = field(default_factory=round_brackets)
        bracket_label: BracketStyle = field(default_factory=round_brackets)
        bracket_year: BracketStyle = field(default_factory=round_brackets)

    register_plugin(
        "sphinxcontrib.bibtex.style.referencing", CITE_STYLE, RoundAuthorYear, force=True
    )
    _keep_formatted_entries()
    _keep_plugin_lookups()


def _keep_plugin_lookups() -> None:
    """pybtex looks its plugins up among every installed package's entry points each time
    sphinxcontrib-bibtex asks for one (each citation asks for the plain-text backend; the
    bibliography's styles, a tenth of a one-page rebuild in a warm process): each one found
    there is kept. Plugins registered at run time are still looked up
    first, as pybtex does."""
    import pybtex.plugin  # type: ignore[import-untyped]

    load = pybtex.plugin._load_entry_point
    if getattr(load, "pb_kept", False):
        return
    kept: dict[tuple[str, str, bool], Any] = {}

    def load_kept(group: str, name: str, use_aliases: bool = False) -> Any:
        groups = [group, group + ".aliases"] if use_aliases else [group]
        for search in groups:
            registered = pybtex.plugin._RUNTIME_PLUGINS.get(search, {}).get(name)
            if registered is not None:
                return registered
        key = (group, name, use_aliases)
        if key not in kept:
            kept[key] = load(group, name, use_aliases)
        return kept[key]

    load_kept.pb_kept = True  # type: ignore[attr-defined]
    pybtex.plugin._load_entry_point = load_kept


def _keep_formatted_entries() -> None:
    """sphinxcontrib-bibtex formats every cited entry again in each run (a third of a
    one-page rebuild of the shipped book, in ``polybook serve``'s warm process): each entry
    is formatted once per style, label and content, and kept while the process lives."""
    from pybtex.style.formatting import BaseStyle  # type: ignore[import-untyped]

    format_entry = BaseStyle.format_entry
    if getattr(format_entry, "pb_kept", False):
        return
    kept: dict[tuple[Any, ...], Any] = {}

    def kept_format_entry(self: Any, label: str, entry: Any, bib_data: Any = None) -> Any:
        if bib_data is not None:
            return format_entry(self, label, entry, bib_data)
        people = [(role, [str(p) for p in persons]) for role, persons in entry.persons.items()]
        fields = repr(list(entry.fields.items()))
        key: tuple[Any, ...] = (type(self), label, entry.key, entry.type, fields, repr(people))
        if key not in kept:
            kept[key] = format_entry(self, label, entry)
        return kept[key]

    kept_format_entry.pb_kept = True  # type: ignore[attr-defined]
    BaseStyle.format_entry = kept_format_entry


def _keys(keys: list[str]) -> nodes.inline:
    return nodes.inline("", f"[{', '.join(keys)}]", classes=["pb-cite-keys"])


def _citations_key(domain: Any) -> str:
    """What sphinxcontrib-bibtex's ``env_updated`` reads: the citations of each page (in
    the pages' order), the bibliographies, the BibTeX files and the tooltip settings."""
    import ast

    from sphinxcontrib.bibtex.domain import get_docnames

    refs = [(r.docname, [(t.key, t.pre, t.post) for t in r.targets]) for r in domain.citation_refs]
    bibliographies = [
        (
            key,
            [value.style, value.list_, value.enumtype, value.start, value.labelprefix],
            [value.keyprefix, ast.dump(value.filter_), [str(f) for f in value.bibfiles]],
            [
                list(value.keys),
                sorted((k, list(n["ids"])) for k, n in value.citation_nodes.items()),
            ],
        )
        for key, value in sorted(domain.bibliographies.items())
    ]
    files = sorted((str(path), bib.mtime) for path, bib in domain.bibdata.bibfiles.items())
    config = domain.env.config
    order = list(get_docnames(domain.env))  # type: ignore[no-untyped-call]
    settings = (config.bibtex_tooltips, config.bibtex_tooltips_style)
    return repr((sorted(refs, key=lambda ref: ref[0]), bibliographies, files, order, settings))


def _show_missing_keys(app: Sphinx) -> None:
    """sphinxcontrib-bibtex's domain, with the keys it cannot find shown as keys; its
    citations worked out again only when what they depend on changed (every citation of
    the book is filtered, sorted and labelled at each build: a tenth of an edit's build
    of d2l-en in ``polybook serve``'s process), unless a page with a bibliography was read
    again (its warnings are said again)."""
    from sphinxcontrib.bibtex.citation_target import parse_citation_targets
    from sphinxcontrib.bibtex.domain import BibtexDomain

    class KeysShownDomain(BibtexDomain):
        pb_kept: tuple[str, list[Any]] | None = None
        pb_cleared: frozenset[str] = frozenset()

        def clear_doc(self, docname: str) -> None:
            self.pb_cleared |= {docname}
            super().clear_doc(docname)

        def env_updated(self) -> Any:
            key = _citations_key(self)
            read_again = self.pb_cleared & {b.docname for b in self.bibliographies}
            self.pb_cleared = frozenset()
            if self.pb_kept is not None and self.pb_kept[0] == key and not read_again:
                self.data["citations"] = list(self.pb_kept[1])
                logger.info("citations unchanged: kept")
                return []
            updated = super().env_updated()
            self.pb_kept = (key, list(self.citations))
            return updated

        def resolve_xref(
            self,
            env: Any,
            fromdocname: str,
            builder: Any,
            typ: str,
            target: str,
            node: Any,
            contnode: Any,
        ) -> Any:
            resolved = super().resolve_xref(env, fromdocname, builder, typ, target, node, contnode)
            known = {citation.key for citation in self.citations}
            keys = [t.key for t in parse_citation_targets(target)]
            missing = [key for key in keys if key not in known]
            if len(missing) == len(keys):
                return _keys(missing)  # not the empty brackets of no citation at all
            if missing:
                resolved += [nodes.Text(" "), _keys(missing)]
            return resolved

    app.add_domain(KeysShownDomain, override=True)


def setup(app: Sphinx, bibliography: bool) -> None:
    """The round author-year style, or, without a bibliography, the keys roles."""
    if bibliography:
        _register_round_style()
        _show_missing_keys(app)
    else:
        for role in ("cite:p", "cite:t"):
            app.add_role(role, KeysRole())
