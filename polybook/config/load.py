"""Reading ``config.ini``: each value checked against the schema, errors and warnings at their
line, and finding the book a command runs in."""

from __future__ import annotations

import configparser
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from polybook import frameworks
from polybook.config.model import BookConfig, LibraryTarget, default_library
from polybook.config.schema import (
    D2LBOOK_IGNORED,
    D2LBOOK_SECTIONS,
    KEYS,
    LIBRARY_SECTION,
    RENAMED,
    BadValue,
    Key,
    Value,
    did_you_mean,
    keys_of,
    nearest,
)
from polybook.diagnostics import Diagnostic, Location, PolybookError

CONFIG_FILE = "config.ini"
COMMAND_LINE = "command line"  # where overridden values are reported
_NO_DEFAULT = "\x00default"  # so that a [DEFAULT] section is an ordinary, unknown one
_SECTIONS = ("project", "build", "library")  # the sections polybook reads, bar [library-<tab>]


def find_book_root(start: Path) -> Path:
    """The folder holding ``config.ini``: ``start`` or its nearest parent that has one."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    message = (
        f"no {CONFIG_FILE} in {start} or any parent folder: run polybook inside a book, "
        "or pass --root DIR"
    )
    raise PolybookError(Location(str(start)), message, "config")


def load_config(root: Path, overrides: Mapping[str, str] | None = None) -> BookConfig:
    """Read and validate ``root/config.ini``; ``overrides`` maps ``section.key`` to values
    (``{"build.strict": "true"}``), checked as if written in the file."""
    path = root / CONFIG_FILE
    if not path.is_file():
        message = f"no {CONFIG_FILE} in {root.resolve()}"
        raise PolybookError(Location(str(path)), message, "config")
    text = path.read_text(encoding="utf-8")
    parser = configparser.ConfigParser(interpolation=None, default_section=_NO_DEFAULT)
    try:
        parser.read_string(text, source=CONFIG_FILE)
    except configparser.Error as exc:
        line = getattr(exc, "lineno", 0) or 0
        if isinstance(exc, configparser.ParsingError) and exc.errors:
            line = exc.errors[0][0]
        message = f"cannot read: {exc.message}"
        raise PolybookError(Location(CONFIG_FILE, line), message, "config") from exc
    overridden: set[tuple[str, str]] = set()
    for dotted, value in (overrides or {}).items():
        section, _, key = dotted.partition(".")
        if not parser.has_section(section):
            parser.add_section(section)
        parser.set(section, key, value)
        overridden.add((section, parser.optionxform(key)))
    return _Reader(root.resolve(), parser, _lines(text), overridden).config()


def _lines(text: str) -> dict[tuple[str, str], int]:
    """Line of each section header (key ``""``) and of each ``key =`` in it."""
    lines: dict[tuple[str, str], int] = {}
    section = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")) or raw[:1].isspace():
            continue  # blank, comment or a value's continuation
        if line.startswith("[") and "]" in line:
            section = line[1 : line.rindex("]")]
            lines.setdefault((section, ""), number)
        else:
            cut = min((line.find(d) for d in "=:" if d in line), default=len(line))
            lines.setdefault((section, line[:cut].strip().lower()), number)
    return lines


@dataclass
class _Reader:
    """One reading of a parsed ``config.ini``; collects its warnings."""

    root: Path
    parser: configparser.ConfigParser
    lines: dict[tuple[str, str], int]
    overridden: set[tuple[str, str]]
    warnings: list[Diagnostic] = field(default_factory=list)

    def config(self) -> BookConfig:
        self._check_names()
        read = [k for k in KEYS if k.section != LIBRARY_SECTION]  # lib_file: _libraries
        values: dict[str, Any] = {k.field_name: self._value(k) for k in read}
        libraries = MappingProxyType(self._libraries())
        return BookConfig(
            root=self.root, libraries=libraries, ignored=tuple(self.warnings), **values
        )

    def _where(self, section: str, key: str = "") -> Location:
        if (section, key) in self.overridden:
            return Location(COMMAND_LINE)
        return Location(CONFIG_FILE, self.lines.get((section, key), 0))

    def _warn(self, section: str, key: str, message: str) -> None:
        self.warnings.append(Diagnostic(self._where(section, key), message, "config"))

    def _value(self, key: Key, section: str = "") -> Value:
        section = section or key.section
        if not self.parser.has_option(section, key.name):
            return key.default
        try:
            value = key.parse(self.parser.get(section, key.name))
        except BadValue as exc:
            message = f"[{section}] {key.name}: {exc}"
            raise PolybookError(self._where(section, key.name), message, "config") from None
        if key.absolute and isinstance(value, str) and value:
            return str((self.root / Path(value).expanduser()).resolve())
        return value

    def _libraries(self) -> dict[str, LibraryTarget]:
        by_name = {k.name: k for k in keys_of(LIBRARY_SECTION)}
        targets: dict[str, LibraryTarget] = {}
        for section in self.parser.sections():
            tab = section.removeprefix("library-")
            if not section.startswith("library-") or tab not in frameworks.REGISTRY:
                continue
            lib_file = str(self._value(by_name["lib_file"], section))
            lib_file = lib_file or default_library(tab).lib_file
            module = PurePosixPath(lib_file).stem  # what readers import
            targets[tab] = LibraryTarget(tab, lib_file, module)
        return targets

    def _check_names(self) -> None:
        """Warn of sections and keys polybook does not read: d2lbook's (ignored, when set)
        and those known to neither (likely typos: the nearest known name is suggested)."""
        for section in self.parser.sections():
            tab = section.removeprefix("library-")
            if section in D2LBOOK_SECTIONS:
                group = section
            elif section.startswith("library-") and tab in frameworks.REGISTRY:
                group = LIBRARY_SECTION
            elif section.startswith("library-"):
                hint = did_you_mean(tab, frameworks.REGISTRY)
                message = f"[{section}] is ignored: unknown framework {tab!r}{hint}"
                self._warn(section, "", message)
                continue
            elif section in _SECTIONS:
                group = section
            else:
                known = [
                    *_SECTIONS,
                    *D2LBOOK_SECTIONS,
                    *(f"library-{f}" for f in frameworks.REGISTRY),
                ]
                close = nearest(section, known)
                hint = f"; did you mean [{close}]?" if close else ""
                self._warn(section, "", f"unknown section [{section}] is ignored{hint}")
                continue
            for key in self.parser.options(section):
                self._check_key(section, group, key)

    def _check_key(self, section: str, group: str, key: str) -> None:
        implemented = [k.name for k in KEYS if k.section == group]
        d2lbook = D2LBOOK_IGNORED.get(group, ())
        if key in implemented:
            return
        if group in D2LBOOK_SECTIONS or key in d2lbook:
            if self.parser.get(section, key).strip():
                renamed = RENAMED.get((group, key))
                hint = f": {renamed}" if renamed else ""
                self._warn(section, key, f"[{section}] {key} is ignored{hint}")
            return
        elsewhere = [k.section for k in KEYS if k.name == key]
        close = nearest(key, [*implemented, *d2lbook])
        if elsewhere:
            hint = f"; it belongs in [{elsewhere[0]}]"
        elif close:
            hint = f"; did you mean `{close}`?"
        else:
            hint = ""
        self._warn(section, key, f"unknown key [{section}] {key} is ignored{hint}")
