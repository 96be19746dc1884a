"""The files and folders ``config.ini`` names, found through the schema: each value of every
key whose values name files of the book (:attr:`~polybook.config.schema.Key.names_files`:
its paths but the host's own, and the lists of files), in every section that has the key
(``[library-<tab>]`` and ``[framework-<name>]`` ones too), at its line. A key added to the
schema later is covered without a list of its own here."""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass
from pathlib import Path

from polybook.config.ini_text import CONFIG_FILE, decode_config, key_lines
from polybook.config.schema import BadValue, keys_of
from polybook.diagnostics import Location, PolybookError


@dataclass(frozen=True)
class ConfiguredFile:
    """A file or folder ``[section] key`` names: as written, where it resolves, its line."""

    section: str
    key: str
    name: str
    path: Path
    line: int

    @property
    def where(self) -> Location:
        return Location(CONFIG_FILE, self.line)


def configured_files(root: Path) -> list[ConfiguredFile]:
    """Each file and folder ``root/config.ini`` names, resolved against ``root`` (symbolic
    links not followed), in the file's order; a config that does not read names none (its
    errors are reported where it is loaded)."""
    try:
        text = decode_config((root / CONFIG_FILE).read_bytes())
    except (OSError, PolybookError):
        return []
    parser = configparser.ConfigParser(interpolation=None, default_section="\x00default")
    try:
        parser.read_string(text, source=CONFIG_FILE)
    except configparser.Error:
        return []
    lines = key_lines(text)
    found = []
    for section in parser.sections():
        for key in keys_of(section):
            if not key.names_files or not parser.has_option(section, key.name):
                continue
            try:
                value = key.parse(parser.get(section, key.name))
            except BadValue:
                continue  # reported by load_config
            line = lines.get((section, key.name), 0)
            for name in key.named_files(value):
                written = Path(name.strip()).expanduser()
                if key.name == "resources":  # d2lbook's resources are rooted at the book
                    written = Path(name.strip("/"))
                path = Path(os.path.normpath(root / written))
                found.append(ConfiguredFile(section, key.name, name, path, line))
    return found
