"""The zip of a framework's notebooks (the files themselves are written by
:mod:`polybook.render.plain_files`)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path

from polybook.fsutil import TEMP_SUFFIX

ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: an unchanged zip has unchanged bytes


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
