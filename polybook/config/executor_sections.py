"""The executors' sections, ``[executor-<name>]``, read from ``config.ini``: each registered
executor's values (its keys' defaults where the book sets none), the deprecated ``[build]``
keys that stand for one of them, and the sections that name no executor with settings."""

from __future__ import annotations

import configparser
from collections.abc import Callable

from polybook.config.executors import registered
from polybook.config.schema import BuildSection, Key, Section, Value, did_you_mean
from polybook.config.schema.executors import EXECUTOR_PREFIX

Read = Callable[[Key, str], Value]  # a key's value in a section, checked (errors collected)
Warn = Callable[[str, str, str], None]  # a warning at a section's key: (section, key, message)


def read_executor_settings(
    parser: configparser.ConfigParser, build: BuildSection, value: Read, warn: Warn
) -> dict[str, Section]:
    """Each registered executor's section, by the executor's name."""
    found: dict[str, Section] = {}
    for name, entry in registered().items():
        if entry.section is None:
            continue
        section = entry.section.SECTION
        values = {key.name: value(key, section) for key in entry.keys}
        for old, new in entry.build_aliases:
            if not parser.has_option("build", old):
                continue
            if parser.has_option(section, new):
                message = (
                    f"[build] {old} is deprecated, and [{section}] {new} is set too:"
                    f" [{section}] {new} is used"
                )
            else:
                values[new] = getattr(build, old)
                message = f"[build] {old} is deprecated: write it as [{section}] {new}"
            warn("build", old, message)
        found[name] = entry.section(**values)
    return found


def unread_section(section: str) -> str:
    """Why ``[executor-<name>]`` is ignored (it names no executor with settings), else ""."""
    name = section.removeprefix(EXECUTOR_PREFIX)
    known = registered()
    if name not in known:
        return f"[{section}] is ignored: unknown executor {name!r}{did_you_mean(name, known)}"
    if known[name].section is None:
        return f"[{section}] is ignored: executor {name!r} has no settings"
    return ""


def executor_sections() -> list[str]:
    """The sections of the registered executors that have one."""
    return [e.section.SECTION for e in registered().values() if e.section is not None]
