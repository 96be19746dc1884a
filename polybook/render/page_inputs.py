"""Which files outside Sphinx's sources each page read (includes, raw and CSV files, images
and downloads from the book), as the render core's extension records them after a run.

A build whose pages are unchanged still runs Sphinx again when one of these files changed
(its content is part of the site's settings and of the build's fingerprint); Sphinx then
rereads the pages that read it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from polybook.fsutil import write_atomic


def write_inputs(path: Path, found: Mapping[str, Sequence[str]]) -> None:
    """Record ``found``: docname -> the absolute paths of the files that page read."""
    write_atomic(path, json.dumps(dict(sorted(found.items())), indent=1))


def read_inputs(path: Path) -> list[Path]:
    """Every file a page read in the run that wrote ``path`` (none when there is none)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    return sorted({Path(p) for paths in data.values() if isinstance(paths, list) for p in paths})


def inputs_digest(records: Iterable[Path]) -> str:
    """Hash of the names and contents of the files the ``records`` list (a missing file
    counts as such)."""
    digest = hashlib.sha256()
    for path in sorted({p for record in records for p in read_inputs(record)}):
        digest.update(str(path).encode() + b"\0")
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"-")
    return digest.hexdigest()
