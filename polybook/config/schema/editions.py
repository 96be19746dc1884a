"""The keys of ``[edition-<name>]``: another edition of the book (a translation, or the
source a translation follows), itself a d2lbook/polybook book; its pages pair with this
book's by path."""

from __future__ import annotations

from polybook.config.schema.key import EDITION_SECTION, Key

EDITION_KEYS: tuple[Key, ...] = (
    Key(
        EDITION_SECTION,
        "root",
        "path",
        "",
        "the edition's book folder (its `config.ini`), relative to this book or absolute:"
        " its pages pair with this book's by path, its executed notebooks serve this book's"
        " pages whose code is the same",
        d2lbook=False,
        outside=True,
    ),
    Key(
        EDITION_SECTION,
        "lang",
        "str",
        "",
        "the edition's language, as the language switcher names it",
        d2lbook=False,
        default_text="the edition's own `[project] lang`",
    ),
    Key(
        EDITION_SECTION,
        "url",
        "str",
        "",
        "where the edition's site is published (its pages are linked below it)",
        d2lbook=False,
        default_text="its built site beside this one (`<root>/_build/html`), relative",
    ),
    Key(
        EDITION_SECTION,
        "source",
        "bool",
        False,
        "the edition this book is translated from: `polybook editions status` compares"
        " this book with it",
        d2lbook=False,
    ),
)
