"""Smart quotes that pass over the text they would leave as it is.

docutils' ``SmartQuotes`` runs its expressions over every plain token of every paragraph,
about a fifth of a page's read in Sphinx (d2l-en), though most tokens hold nothing it
changes. Here a token with none of what it educates (quotes, backticks, dashes, ellipses,
backslash escapes, entities) is handed to it as *literal*: docutils returns such a token as
it is and takes its last character as the next token's context, as it does for a plain one.
Every other token is educated by docutils, as before; the pages are the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from docutils.utils import smartquotes
from sphinx.application import Sphinx

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


def setup(app: Sphinx) -> None:
    smartquotes.educate_tokens = educate_tokens  # docutils' transform looks it up per page
