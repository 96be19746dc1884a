"""Errors that say the host lacks a device: a cell that fails with one is badged "needs N
GPUs" and its notebook goes on, as on a host without GPUs its author expects.

Every cell runs: whether a cell needs a GPU is known only once it has tried. The patterns
here are the CUDA stack's own, shared by every framework; a framework adds its own words
(``[framework-<name>] device_errors``, in ``frameworks.ini`` for the four polybook ships).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

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


@lru_cache(maxsize=64)
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
