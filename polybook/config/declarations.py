"""Frameworks from their ``[framework-<name>]`` declarations: each key's value (read by its
kind) carried onto the :class:`~polybook.frameworks.Framework` field of the same name; the five
polybook ships (``frameworks.ini``); and what the values must be beside their kind: regular
expressions that compile (a GPU pattern with a group for the index)."""

from __future__ import annotations

import configparser
import re
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from polybook.config.schema import (
    FRAMEWORK_DEFAULTS,
    FRAMEWORK_KEYS,
    FRAMEWORK_NAME,
    Value,
)
from polybook.frameworks import SECTION_PREFIX, Framework
from polybook.paths import PACKAGE_ROOT


def declare(name: str, values: Mapping[str, Value], inherit: Framework | None = None) -> Framework:
    """The framework ``name`` of a ``[framework-<name>]`` section's ``values`` (its set keys,
    read and resolved; an empty one is unset), over ``inherit``'s; a new one's unset keys as
    :data:`~polybook.config.schema.FRAMEWORK_DEFAULTS` says, in its order, else their
    defaults."""
    values = {k: v for k, v in values.items() if v != ""}
    if inherit is not None:
        return replace(inherit, declared=True, **values)  # type: ignore[arg-type]
    given: dict[str, Value] = {k.name: values.get(k.name, k.default) for k in FRAMEWORK_KEYS}
    for key, source in FRAMEWORK_DEFAULTS.items():
        if key not in values:
            value = name if source == FRAMEWORK_NAME else str(given[source])
            given[key] = value if isinstance(given[key], str) else (value,)
    return Framework(name, **given)  # type: ignore[arg-type]


def _shipped() -> Mapping[str, Framework]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(PACKAGE_ROOT / "frameworks.ini", encoding="utf-8")
    found: dict[str, Framework] = {}
    for section in parser.sections():
        values = {
            k.name: k.resolve(k.parse(parser.get(section, k.name)), PACKAGE_ROOT)
            for k in FRAMEWORK_KEYS
            if parser.has_option(section, k.name)
        }
        name = section.removeprefix(SECTION_PREFIX)
        found[name] = declare(name, values)
    return MappingProxyType(found)


# The built-in declarations; a book's are in BookConfig.frameworks.
SHIPPED: Mapping[str, Framework] = _shipped()


def shipped(name: str) -> Framework:
    """The built-in framework called ``name`` (KeyError if unknown)."""
    return SHIPPED[name]


def _words(value: Value) -> tuple[str, ...]:
    return tuple(str(w) for w in value) if isinstance(value, tuple) else ()


def declaration_problems(section: str, values: Mapping[str, Value]) -> list[tuple[str, str]]:
    """(key, message) for each value of a framework's declaration that cannot be used."""
    problems: list[tuple[str, str]] = []
    for key in ("gpu_patterns", "device_errors"):
        for word in _words(values.get(key, ())):
            try:
                groups = re.compile(word).groups
            except re.error as exc:
                why = f"not a regular expression ({exc})"
            else:
                if groups or key == "device_errors":
                    continue
                why = "it has no group for the GPU index"
            problems.append((key, f"[{section}] {key}: {word!r}: {why}"))
    return problems
