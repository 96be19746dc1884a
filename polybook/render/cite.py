"""Citations: ``{cite:p}`` and ``{cite:t}`` (from d2l's ``:cite:``, ``:citet:``) are
sphinxcontrib-bibtex's, in author-year style with round brackets, as d2l prints them; a book
without a bibliography shows the keys, with a located warning each."""

from __future__ import annotations

from dataclasses import dataclass, field

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
        message = "citations are shown as keys: no bibliography is configured ([pdf] bibfile)"
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
    _pin_plaintext_backend()


def _pin_plaintext_backend() -> None:
    """Each citation asks pybtex for its plain-text backend, and pybtex looks a plugin up in
    every installed package's entry points, each time: register the one found once."""
    from pybtex.plugin import find_plugin  # type: ignore[import-untyped]
    from pybtex.plugin import register_plugin as register_pybtex_plugin

    backend = find_plugin("pybtex.backends", "plaintext")
    register_pybtex_plugin("pybtex.backends", "plaintext", backend, force=True)


def setup(app: Sphinx, bibliography: bool) -> None:
    """The round author-year style, or, without a bibliography, the keys roles."""
    if bibliography:
        _register_round_style()
    else:
        for role in ("cite:p", "cite:t"):
            app.add_role(role, KeysRole())
