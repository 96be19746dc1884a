"""Where a job is: a line of JSON per cell it starts, appended to a file in the job's folder,
so that a worker lost on a cell can be placed (:func:`last_started`).

Appending costs one ``write``. Replacing the file at each cell (a copy renamed over it) made
the file system flush the copy at every rename, and the cell waited for the disk.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType

from polybook.diagnostics import Location


class CellLog:
    """The cells a job started, in order; each line is written whole by one ``write``."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)

    def started(self, where: Location) -> None:
        os.write(self.fd, (json.dumps(where.to_json()) + "\n").encode())

    def __enter__(self) -> CellLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        os.close(self.fd)


def last_started(path: Path) -> Location | None:
    """The last cell the log at ``path`` records; None if it holds none (a line cut short by
    a killed process is passed over)."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]  # whole lines only
    except OSError:
        return None
    for line in reversed(lines):
        try:
            return Location.from_json(json.loads(line))
        except (ValueError, KeyError, TypeError):
            continue
    return None
