"""``config.ini`` as text: decoded, its unreadable lines located, and the line of each
section and key (configparser keeps no line numbers)."""

from __future__ import annotations

import ast
import codecs
import configparser
from pathlib import Path

from polybook.diagnostics import Location, PolybookError

CONFIG_FILE = "config.ini"


def decode_config(data: bytes) -> str:
    """The text of ``config.ini``: UTF-8, with or without a byte order mark."""
    body = data.removeprefix(codecs.BOM_UTF8)  # the decoder's offsets count from after it
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = body[: exc.start].decode("utf-8").split("\n")
        line, column = len(before), len(before[-1]) + 1
        message = (
            f"not UTF-8: byte 0x{body[exc.start]:02x} at column {column} ({exc.reason});"
            " save the file as UTF-8"
        )
        raise PolybookError(Location(CONFIG_FILE, line), message, "config") from exc


def parse_errors(exc: configparser.Error) -> list[PolybookError]:
    """Each line configparser could not read, located."""
    if isinstance(exc, configparser.MissingSectionHeaderError):
        message = f"{exc.line.strip()!r} comes before any [section]: put it under one, e.g. [build]"
        return [PolybookError(Location(CONFIG_FILE, exc.lineno), message, "config")]
    if isinstance(exc, configparser.ParsingError):
        return [
            PolybookError(
                Location(CONFIG_FILE, line), f"cannot read {_as_written(text)!r}", "config"
            )
            for line, text in exc.errors
        ]
    line = int(getattr(exc, "lineno", 0) or 0)
    return [PolybookError(Location(CONFIG_FILE, line), f"cannot read: {exc.message}", "config")]


def _as_written(shown: str) -> str:
    """A line as configparser's errors show it (its ``repr``), as it is in the file."""
    try:
        line = ast.literal_eval(shown)
    except (ValueError, SyntaxError):
        return shown
    return str(line).strip()


def key_location(root: Path, section: str, key: str, framework: str = "") -> Location:
    """Where ``[section] key`` is set in ``root/config.ini`` (line 0 when it is not)."""
    try:
        text = (root / CONFIG_FILE).read_bytes().decode("utf-8-sig", errors="replace")
    except OSError:
        text = ""
    return Location(CONFIG_FILE, key_lines(text).get((section, key), 0), framework)


def key_lines(text: str) -> dict[tuple[str, str], int]:
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


def value_lines(text: str, section: str, key: str) -> list[int]:
    """The line of each line of ``[section] key``'s value as configparser reads it: the key's
    own, then each continuation line (comment lines are not the value's); [] when unset."""
    found: list[int] = []
    current = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        continued = raw[:1].isspace() or not line
        if found and (continued or line.startswith(("#", ";"))):
            if not line.startswith(("#", ";")):
                found.append(number)
            continue
        if found:
            break
        if line.startswith("[") and "]" in line and not raw[:1].isspace():
            current = line[1 : line.rindex("]")]
        elif current == section and not continued and not line.startswith(("#", ";")):
            cut = min((line.find(d) for d in "=:" if d in line), default=len(line))
            if line[:cut].strip().lower() == key:
                found.append(number)
    return found
