"""Smart quotes that pass over the text they would leave as it is.

docutils' ``SmartQuotes`` runs its expressions over every plain token of every paragraph,
about a fifth of a page's read in Sphinx (d2l-en), though most tokens hold nothing it
changes. Here a token with none of what it educates (quotes, backticks, dashes, ellipses,
backslash escapes, entities) is handed to it as *literal*: docutils returns such a token as
it is and takes its last character as the next token's context, as it does for a plain one.
Every other token is educated by docutils, as before; the pages are the same.

Sphinx's transform also puts a new text node in place of every text node of every block
(three in four hold nothing it changes) and asks for each whether it may be educated:
:class:`PassingSmartQuotes` passes over a block whose text educating leaves as it is,
hands docutils such a text node as it is, and replaces only the nodes whose text changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from docutils import nodes
from docutils.utils import normalize_language_tag, smartquotes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxSmartQuotes

# What docutils' educating (any ``smartquotes_action`` but stupefying) reads or rewrites.
EDUCATED = ("'", '"', "`", "\\", "--", "...", ". . .", "&quot;", "&#")
STUPEFY = "-1"  # the action that rewrites typographic characters back to plain ones
_DOCUTILS = smartquotes.educate_tokens


def untouched(text: str) -> bool:
    """Whether educating leaves ``text`` as it is, whatever its context."""
    return not any(mark in text for mark in EDUCATED)


def educate_tokens(
    text_tokens: Iterable[tuple[str, str]],
    attr: str = smartquotes.default_smartypants_attr,
    language: str = "en",
) -> Iterator[str]:
    """docutils' ``educate_tokens``, the plain tokens it would not change passed as literal."""
    if attr == STUPEFY:
        return _DOCUTILS(text_tokens, attr, language)  # type: ignore[no-any-return]
    marked = (
        ("literal", text)
        if kind not in ("tag", "literal") and text and untouched(text)
        else (kind, text)
        for kind, text in text_tokens
    )
    return _DOCUTILS(marked, attr, language)  # type: ignore[no-any-return]


def _as_it_is(text: nodes.Text) -> bool:
    """Whether educating gives ``text`` back as it is, smart-quotable or not (a node that
    is not gives its text unescaped: the same where it holds no escape)."""
    return untouched(text) and "\x00" not in text


class PassingSmartQuotes(SphinxSmartQuotes):
    """Sphinx's smart quotes that leave in place the text nodes they would not change, and
    pass over the blocks that hold none they would (see the module)."""

    def get_tokens(self, txtnodes: list[nodes.Text]) -> Iterator[tuple[str, str]]:
        for txtnode in txtnodes:
            if _as_it_is(txtnode):
                yield "literal", str(txtnode)  # as Sphinx's, without asking its parents
            else:
                yield from super().get_tokens([txtnode])

    def apply(self, **kwargs: Any) -> None:
        if not self.is_available():
            return
        self.smartquotes_action = self.config.smartquotes_action
        if self.smartquotes_action == STUPEFY:
            super().apply(**kwargs)  # it rewrites typographic marks too
            return
        settings = self.document.settings
        if not settings.setdefault("smart_quotes", False):
            return
        if settings.smartquotes_locales:
            smartquotes.smartchars.quotes.update(dict(settings.smartquotes_locales))
        for block in self.document.findall(nodes.TextElement):
            if isinstance(block, self.nodes_to_skip) or isinstance(block.parent, nodes.TextElement):
                continue  # not a block, or one whose text is not prose
            texts = [
                text
                for text in block.findall(nodes.Text)
                if not isinstance(text.parent, nodes.option_string)
            ]
            language = self._language(block)
            if all(_as_it_is(text) for text in texts):
                continue
            educated = smartquotes.educate_tokens(
                self.get_tokens(texts), attr=self.smartquotes_action, language=language
            )
            for text, new in zip(texts, educated, strict=False):
                if new != text:
                    text.parent.replace(text, nodes.Text(new))
        self.unsupported_languages.clear()

    def _language(self, block: nodes.Element) -> str:
        """The quotes' language of ``block``, as docutils chooses it (warned of once where
        it has none)."""
        language = block.get_language_code(self.document.settings.language_code)
        smart_quotes = self.document.settings.smart_quotes
        if isinstance(smart_quotes, str) and smart_quotes.startswith("alt"):
            alternative = "-x-altquot"
            has = alternative in language
            language = language.replace(alternative, "") if has else language + alternative
        for tag in normalize_language_tag(language):
            if tag in smartquotes.smartchars.quotes:
                return str(tag)
        if language not in self.unsupported_languages:
            self.document.reporter.warning(
                f'No smart quotes defined for language "{language}".', base_node=block
            )
        self.unsupported_languages.add(language)
        return ""


def setup(app: Sphinx) -> None:
    smartquotes.educate_tokens = educate_tokens  # docutils' transform looks it up per page
    found = app.registry.transforms
    found[:] = [PassingSmartQuotes if t is SphinxSmartQuotes else t for t in found]
