"""The sections of polybook's executors, ``[executor-<name>]``: what one executor alone reads,
declared with it (``Registered.section`` in :mod:`polybook.config.executors`). Each key is a
field of its section's dataclass, as in the book's other sections; the command line's
options for an executor (``polybook build --scheduler``) are made from these keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from polybook.config.schema.key import key

EXECUTOR_PREFIX = "executor-"  # an executor's section is [executor-<its name>]


@dataclass(frozen=True)
class DaskSection:
    """``[executor-dask]``: the Dask cluster that ``executor = dask`` runs notebooks on."""

    SECTION: ClassVar[str] = EXECUTOR_PREFIX + "dask"

    scheduler: str = key(
        "str",
        "",
        "the Dask scheduler, `tcp://HOST:PORT`: a build with `executor = dask` sends its"
        " notebooks there, and `polybook worker` joins it",
        d2lbook=False,
        read_by=("eval", "worker"),
    )
