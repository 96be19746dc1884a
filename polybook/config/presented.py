"""Warnings about d2lbook's keys that change what readers see, beyond their values' checks:
the parts of ``[html] header_links`` left out (at their own line of the value), and the files
``[html] favicon``, ``html_logo``, ``[library] version_file`` and the bibliography
(``[project] bibfile``, d2lbook's ``[pdf] bibfile``) name that are missing (at the key's
line)."""

from __future__ import annotations

import configparser
from collections.abc import Callable
from pathlib import Path

from polybook.config.ini_text import CONFIG_FILE, value_lines
from polybook.config.schema.links import read_header_links
from polybook.diagnostics import Diagnostic, Location

# The keys naming a file the build reads but can do without, and what it does without.
OPTIONAL_FILES = {
    ("html", "favicon"): "the site shows polybook's icon",
    ("html", "html_logo"): "the site shows no logo",
    ("library", "version_file"): "the release is written nowhere",
    ("project", "bibfile"): "citations are shown as their keys",
    ("pdf", "bibfile"): "citations are shown as their keys",
}


def presented_warnings(
    parser: configparser.ConfigParser,
    text: str,
    root: Path,
    where: Callable[[str, str], Location],
) -> list[Diagnostic]:
    """The warnings of the book at ``root`` whose ``config.ini`` is ``text`` (parsed:
    ``parser``); ``where`` locates a key."""
    found = _link_warnings(parser, text, where)
    for (section, key), without in OPTIONAL_FILES.items():
        name = parser.get(section, key, fallback="").strip()
        if name and not (root / Path(name).expanduser()).is_file():
            message = f"[{section}] {key}: no file {name!r} in the book: {without}"
            found.append(Diagnostic(where(section, key), message, "config"))
    return found


def _link_warnings(
    parser: configparser.ConfigParser, text: str, where: Callable[[str, str], Location]
) -> list[Diagnostic]:
    raw = parser.get("html", "header_links", fallback="")
    _, problems = read_header_links(raw)
    key_at = where("html", "header_links")
    lines = value_lines(text, "html", "header_links") if key_at.path == CONFIG_FILE else []
    found = []
    for problem in problems:
        line = lines[problem.line] if problem.line < len(lines) else key_at.line
        at = Location(key_at.path, line) if lines else key_at
        found.append(Diagnostic(at, f"[html] header_links: {problem.message}", "config"))
    return found
