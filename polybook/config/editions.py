"""``[edition-<name>]`` sections read into :class:`~polybook.config.model.Edition`."""

from __future__ import annotations

import configparser
from collections.abc import Callable
from pathlib import Path

from polybook.config.model import Edition
from polybook.config.schema import EDITION_SECTION, Key, Value, keys_of

PREFIX = "edition-"


def read_editions(
    parser: configparser.ConfigParser,
    root: Path,
    value: Callable[[Key, str], Value],
    lines: dict[tuple[str, str], int],
) -> tuple[Edition, ...]:
    """The book's editions, in the order config.ini declares them (one without a ``root``
    is left out: the loader's check of required keys says so)."""
    keys = {k.name: k for k in keys_of(EDITION_SECTION)}
    found = []
    for section in parser.sections():
        if not section.startswith(PREFIX):
            continue
        folder = str(value(keys["root"], section))
        if not folder:
            continue
        found.append(
            Edition(
                name=section.removeprefix(PREFIX),
                root=(root / Path(folder).expanduser()).resolve(),
                lang=str(value(keys["lang"], section)),
                url=str(value(keys["url"], section)),
                source=bool(value(keys["source"], section)),
                line=lines.get((section, ""), 0),
            )
        )
    return tuple(found)
