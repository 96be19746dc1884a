"""Footnotes in d2l prose: the labels a page defines, and references to none kept as text."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

# A footnote's reference, or a code span (left alone); and a footnote's definition line.
FOOTNOTE_OR_CODE = re.compile(r"(`+).+?(?<!`)\1(?!`)|\[\^([^\]\s]+)\](?!:)")
FOOTNOTE_DEFINITION = re.compile(r"^ {0,3}\[\^([^\]\s]+)\]:", re.M)


def footnote_labels(texts: Iterable[str]) -> frozenset[str]:
    """The footnotes a page defines (``[^label]: text``) in its prose ``texts``."""
    return frozenset(m.group(1) for text in texts for m in FOOTNOTE_DEFINITION.finditer(text))


def undefined_footnotes_as_text(line: str, footnotes: Collection[str]) -> str:
    """``[^x]`` that names no footnote of the page stays text, as pandoc (and so d2lbook)
    reads it: a regex such as ``[^A-Za-z]`` in prose is no footnote."""

    def escape(match: re.Match[str]) -> str:
        label = match.group(2)
        return match.group(0) if label is None or label in footnotes else "\\" + match.group(0)

    return FOOTNOTE_OR_CODE.sub(escape, line) if "[^" in line else line
