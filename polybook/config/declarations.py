"""What a ``[framework-<name>]`` section's values must be, beside their types: variables
written ``NAME=VALUE``, regular expressions that compile (a GPU pattern with a group for the
index)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from polybook.config.schema import Value


def _words(value: Value) -> tuple[str, ...]:
    return tuple(str(w) for w in value) if isinstance(value, tuple) else ()


def declaration_problems(section: str, values: Mapping[str, Value]) -> list[tuple[str, str]]:
    """(key, message) for each value of a framework's declaration that cannot be used."""
    problems: list[tuple[str, str]] = []
    for word in _words(values.get("kernel_env", ())):
        if "=" not in word or not word.partition("=")[0].isidentifier():
            problems.append(("kernel_env", f"[{section}] kernel_env: {word!r} is not NAME=VALUE"))
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
