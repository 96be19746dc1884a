"""An opt-in profile of the steps ``polybook serve`` repeats per edit.

With ``POLYBOOK_PROFILE`` naming a folder, each served rebuild (in the serve process) and
each build of the Sphinx process it keeps warm is profiled with cProfile, its statistics
written there as ``<what>-<pid>-<n>.prof`` (read them with ``python -m pstats``). Without
it, nothing is profiled.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

PROFILE = "POLYBOOK_PROFILE"
_COUNT = itertools.count()


@contextlib.contextmanager
def profiled(what: str) -> Iterator[None]:
    """Profile the block where ``POLYBOOK_PROFILE`` names a folder (see the module)."""
    folder = os.environ.get(PROFILE, "")
    if not folder:
        yield
        return
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        Path(folder).mkdir(parents=True, exist_ok=True)
        profile.dump_stats(Path(folder) / f"{what}-{os.getpid()}-{next(_COUNT)}.prof")
