"""Files of the notebooks stage: notebooks, the resources beside them, a zip per framework.

Every file is written atomically and only when its bytes change, so a rebuild of an
unchanged book rewrites nothing; files a previous build left that this one does not make
are removed (a failed page keeps its last good notebooks).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path

from polybook.fsutil import TEMP_SUFFIX, write_atomic

ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: an unchanged zip has unchanged bytes


def write_files(folder: Path, files: dict[str, bytes]) -> tuple[set[Path], int]:
    """Write ``files`` (relative path -> bytes) under ``folder``; returns the paths and how
    many changed."""
    written: set[Path] = set()
    changed = 0
    for name, data in files.items():
        target = folder / name
        changed += write_atomic(target, data)
        written.add(target)
    return written, changed


def remove_stale(folder: Path, keep: set[Path]) -> int:
    """Delete files under ``folder`` not in ``keep``, then empty folders; returns how many."""
    removed = 0
    if not folder.is_dir():
        return 0
    for path in sorted(folder.rglob("*"), reverse=True):
        if path.is_file() and path not in keep:
            path.unlink()
            removed += 1
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return removed


def zip_folder(top: str, folder: Path, files: Iterable[Path]) -> bytes:
    """A zip of ``files`` (under ``folder``) inside one top folder, byte-for-byte stable."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(files):
            if path.name.endswith(TEMP_SUFFIX):
                continue
            info = zipfile.ZipInfo(f"{top}/{path.relative_to(folder).as_posix()}", ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()
