"""Errors that say the host lacks a device: a cell that fails with one is badged "needs N
GPUs" and its notebook goes on, as on a host without GPUs its author expects.

Every cell runs: whether a cell needs a GPU is known only once it has tried. The patterns
here are the CUDA stack's own, shared by every framework; a framework adds its own words
(``[framework-<name>] device_errors``, in ``frameworks.ini`` for those polybook ships).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from polybook.memo import memoised

UNDEFINED = re.compile(r"^name '(\w+)' is not defined")
MAGIC_LINE = re.compile(r"^[ \t]*[%!].*$", re.M)

# What the CUDA runtime and drivers say, whichever framework asks them.
CUDA_ERRORS = (
    r"not compiled with CUDA",
    r"no CUDA GPUs are available",
    r"no CUDA-capable device",
    r"Found no NVIDIA driver",
    r"NVIDIA driver on your system is too old",
    r"CUDA driver version is insufficient",
    r"CUDA driver initialization failed",
    r"invalid device ordinal",
    r"CUDA_ERROR_NO_DEVICE",
    r"CUDA_ERROR_INVALID_DEVICE",
)


@memoised(64)  # by the frameworks' declared errors (a book may declare its own)
def _compiled(extra: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in (*CUDA_ERRORS, *extra)), re.IGNORECASE)


def device_unavailable(
    ename: str, evalue: str, framework_errors: Iterable[str] = (), beyond_host: bool = False
) -> bool:
    """Whether a cell's error (``ename``, ``evalue``) says the host lacks its device.
    ``beyond_host``: the cell names a GPU index the host does not have, so an ``IndexError``
    (a list of devices shorter than the index) says so too."""
    if beyond_host and ename == "IndexError":
        return True
    return bool(_compiled(tuple(framework_errors)).search(f"{ename}: {evalue}"))


def bound_names(source: str) -> set[str]:
    """The names a cell's code binds (assignments, definitions, imports); none where it
    does not parse."""
    try:
        tree = ast.parse(MAGIC_LINE.sub("", source))
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


class MissingDevices:
    """What a notebook's badged cells did not define: a later cell that fails only because
    it reads one of those names (d2l's ``Y + Z`` after ``Z = X.cuda(1)``) is badged too."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # name -> the badge of the cell that would bind it

    def badged(self, source: str, badge: str) -> None:
        for name in bound_names(source):
            self.names.setdefault(name, badge)

    def badge_of(self, ename: str, evalue: str) -> str:
        """The badge a cell failing with ``ename: evalue`` inherits, or ""."""
        found = UNDEFINED.match(evalue) if ename == "NameError" else None
        return self.names.get(found.group(1), "") if found else ""
