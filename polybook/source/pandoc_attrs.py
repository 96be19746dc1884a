"""Pandoc's attribute braces, as the 2026 d2l dialect writes them on fenced divs and spans:
``{.slide title="Motivation" only="pytorch"}``, ``{.cols .vc}``."""

from __future__ import annotations

import re

CLASS = re.compile(r"(?:^|\s)\.([\w-]+)")
ATTRIBUTE = re.compile(r"([\w-]+)=\"([^\"]*)\"")


def attributes(spec: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """The classes and the ``key="value"`` attributes of ``spec`` (inside the braces)."""
    return tuple(CLASS.findall(spec)), dict(ATTRIBUTE.findall(spec))
