"""The book's configuration: ``config.ini`` (d2lbook's sections and keys), declared once in
:mod:`polybook.config.schema` and read by :func:`load_config` into one :class:`BookConfig`."""

from __future__ import annotations

from polybook.config.ini_text import CONFIG_FILE, key_location
from polybook.config.load import find_book_root, load_config
from polybook.config.model import Book, BookConfig, LibraryTarget
from polybook.config.schema import KEYS, Key
from polybook.config.table import markdown_table, with_table

__all__ = [
    "CONFIG_FILE",
    "KEYS",
    "Book",
    "BookConfig",
    "Key",
    "LibraryTarget",
    "find_book_root",
    "key_location",
    "load_config",
    "markdown_table",
    "with_table",
]
