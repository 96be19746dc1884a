"""Where pip is configured to find packages, said to uv, so that either installs the same
distributions: pip's own reading of its configuration files and ``PIP_*`` variables
(``pip config list``), merged as pip merges them, then given to uv as options.

Only the standard library here: the Makefile runs this before the tool's packages exist.
"""

from __future__ import annotations

import ast
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

# pip's settings for ``pip install``, lowest precedence first: the configuration files'
# [global] then [install] sections, then the PIP_* variables (``:env:``).
SECTIONS = ("global", "install", ":env:")

SINGLE = {"index-url": "--index-url"}
MANY = {  # whitespace-separated lists in pip's files and variables
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
    "trusted-host": "--allow-insecure-host",
}
SWITCHES = {"no-index": ("--no-index",), "pre": ("--prerelease", "allow")}
# Settings uv reads from its environment instead of its command line (its child's alone).
ENVIRON = {
    "cert": "SSL_CERT_FILE",
    "client-cert": "SSL_CLIENT_CERT",
    "timeout": "UV_HTTP_TIMEOUT",
    "default-timeout": "UV_HTTP_TIMEOUT",
}
# Settings that change nothing pip installs.
INERT = frozenset(
    {
        "disable-pip-version-check",
        "retries",
        "progress-bar",
        "quiet",
        "verbose",
        "no-input",
        "no-color",
        "root-user-action",
        "cache-dir",
        "no-cache-dir",
        "require-virtualenv",
        "log",
        "exists-action",
        "config-file",  # PIP_CONFIG_FILE: its settings are read with the rest
        "proxy",  # uv reads the same HTTPS_PROXY and friends that pip falls back on
    }
)
# uv's own variables that would add to, or change, the sources it is given here.
UV_SOURCES = (
    "UV_INDEX",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "UV_NO_INDEX",
    "UV_INDEX_STRATEGY",
    "UV_CONSTRAINT",
    "UV_OVERRIDE",
    "UV_BUILD_CONSTRAINT",
    "UV_PRERELEASE",
    "UV_EXCLUDE_NEWER",
    "UV_INSECURE_HOST",
    "UV_CONFIG_FILE",
)
TRUE = frozenset({"1", "yes", "true", "on", "y"})


def parse(listing: str) -> dict[str, str]:
    """The settings ``pip install`` runs with, from what ``pip config list`` printed
    (``section.key='value'`` lines): by key, the section of highest precedence winning."""
    found: dict[str, dict[str, str]] = {}
    for line in listing.splitlines():
        name, equals, quoted = line.partition("=")
        section, dot, key = name.strip().rpartition(".")
        if not (equals and dot and section in SECTIONS):
            continue
        try:
            value = ast.literal_eval(quoted.strip())
        except (ValueError, SyntaxError):
            value = quoted.strip()
        found.setdefault(section, {})[key.strip().replace("_", "-")] = str(value)
    merged: dict[str, str] = {}
    for section in SECTIONS:
        merged.update(found.get(section, {}))
    return merged


def read(python: Path) -> dict[str, str]:
    """The settings the pip of ``python`` installs with. Raises OSError where that pip
    cannot say."""
    command = [str(python), "-m", "pip", "config", "list"]
    # pip's modules compiled as they are imported (a venv seeded by uv has no bytecode yet).
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=120, check=False, env=environ
        )
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"{' '.join(command)} did not finish") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        raise OSError(f"{' '.join(command)} failed: {last}")
    return parse(done.stdout)


def unfollowed(settings: Mapping[str, str]) -> list[str]:
    """The settings uv is not told of and that may change what pip installs."""
    known = {*SINGLE, *MANY, *SWITCHES, *ENVIRON, *INERT}
    return sorted(key for key in settings if key not in known)


def uv_options(settings: Mapping[str, str]) -> list[str]:
    """uv's options for pip's sources. pip takes a version from whichever index offers the
    best one (a local build, ``2.13.0+cpu``, beats ``2.13.0``): so does uv, told so."""
    options = ["--index-strategy", "unsafe-best-match"]
    for key, option in SINGLE.items():
        if settings.get(key):
            options += [option, settings[key]]
    for key, option in MANY.items():
        for value in settings.get(key, "").split():
            options += [option, value]
    for key, switch in SWITCHES.items():
        if settings.get(key, "").lower() in TRUE:
            options += switch
    return options


def uv_environ(settings: Mapping[str, str], base: Mapping[str, str]) -> dict[str, str]:
    """The environment of a uv child: ``base`` without uv's own sources, with what pip is
    configured with that uv reads from its environment (certificates, the timeout)."""
    environ = {k: v for k, v in base.items() if k not in UV_SOURCES}
    for key, variable in ENVIRON.items():
        if settings.get(key):
            environ[variable] = settings[key]
    return environ
