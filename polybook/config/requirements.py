"""Pinned requirement files: the frameworks' sets and the book's own (``[build]
requirements``), read as the pins they name."""

from __future__ import annotations

import re
from pathlib import Path

from polybook.diagnostics import Location, PolybookError

# `name==1.2`, `name[extra]==1.2 ; marker`, `name @ https://…` (a URL names one build)
PINNED = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*(===?[^=\s;,]+\s*(;.*)?|@\s*\S+.*)$"
)


def unpinned_requirement(path: Path) -> None:
    """Raise at the first line of ``path`` that names a package without pinning one version."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PolybookError(Location(str(path)), f"cannot read: {exc}", "config") from exc
    for number, raw in enumerate(lines, start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if not PINNED.match(line):
            name = re.split(r"[\s<>=!~;\[]", line, maxsplit=1)[0]
            message = (
                f"{line!r} is not pinned: name one version ({name}==VERSION), so that every"
                " build installs the same packages and the cache can trust them"
            )
            raise PolybookError(Location(str(path), number), message, "config.requirements")


# A build of one release: `[and-cuda]`, `_cpu`, `-cu112`, `-gpu` (paddlepaddle-gpu)
BUILD_VARIANT = re.compile(r"\[[^\]]*\]|[-_](cpu|gpu|cu\d+)(?=\s*==)")


def normalized_pin(line: str) -> str:
    """``tensorflow[and-cuda]==2.21`` / ``tensorflow_cpu==2.21`` -> ``tensorflow==2.21``;
    ``paddlepaddle-gpu==2.6.2`` -> ``paddlepaddle==2.6.2``."""
    name, _, version = line.strip().partition("==")
    name = BUILD_VARIANT.sub("", name.strip() + "==").removesuffix("==")
    return f"{name.lower().replace('_', '-')}=={version.strip()}"


def pins(requirements: Path) -> list[str]:
    """The normalized pins of a requirement file, sorted."""
    lines = requirements.read_text(encoding="utf-8").splitlines()
    return sorted(normalized_pin(x) for x in lines if x.strip() and not x.lstrip().startswith("#"))
