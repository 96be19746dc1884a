"""``[edition-<name>]``: another edition of the book (a translation, or the source a
translation follows), itself a d2lbook/polybook book; its pages pair with this book's by path.
Each key declared once, as a field of :class:`Edition`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from polybook.config.schema.key import EDITION_SECTION, key


@dataclass(frozen=True)
class Edition:
    """``[edition-<name>]``: another edition of the book, a book of its own."""

    SECTION: ClassVar[str] = EDITION_SECTION

    name: str
    root: Path = key(
        "path",
        "",
        "the edition's book folder (its `config.ini`), relative to this book or absolute:"
        " its pages pair with this book's by path, its executed notebooks serve this book's"
        " pages whose code is the same",
        d2lbook=False,
        outside=True,
        read_by=("html", "eval"),
    )
    lang: str = key(
        "str",
        "",
        "the edition's language, as the language switcher names it",
        d2lbook=False,
        default_text="the edition's own `[project] lang`",
        read_by=("lib",),
    )
    url: str = key(
        "str",
        "",
        "where the edition's site is published (its pages are linked below it)",
        d2lbook=False,
        default_text="its built site beside this one (`<root>/_build/html`), relative",
        read_by=("html",),
    )
    source: bool = key(
        "bool",
        False,
        "the edition this book is translated from: `polybook editions status` compares"
        " this book with it",
        d2lbook=False,
        read_by=("editions",),
    )
    line: int = 0  # of the section in config.ini, for messages
