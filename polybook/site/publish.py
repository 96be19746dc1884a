"""The site's extra files (``_build/site_extra``: notebooks for download, the library's wheel,
the books and decks), copied into the site by the build itself, not by Sphinx.

So they need not be ready when Sphinx starts: the download notebooks and the wheel are made
while Sphinx writes the pages, and a change to them alone runs no Sphinx at all. A copy is
made where the site's file differs from its source in size or modification time (copies
keep the source's), through a temporary file.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from polybook.fsutil import TEMP_SUFFIX, file_stamp, write_atomic


def _copy(source: Path, target: Path) -> None:
    write_atomic(target, source.read_bytes())
    shutil.copystat(source, target)  # its time too: the next build compares stamps


def publish_extras(extra: Path, site: Path, owned: Iterable[str]) -> int:
    """Copy the files under ``extra`` into ``site`` where they differ, and remove the site's
    files under the folders ``owned`` (names under ``extra``) that ``extra`` no longer has;
    how many files were copied or removed."""
    done = 0
    for source in sorted(extra.rglob("*")) if extra.is_dir() else ():
        if not source.is_file() or source.name.endswith(TEMP_SUFFIX):
            continue
        target = site / source.relative_to(extra)
        if file_stamp(target) != file_stamp(source):
            _copy(source, target)
            done += 1
    for name in owned:
        copy = site / name
        for path in sorted(copy.rglob("*")) if copy.is_dir() else ():
            if path.is_file() and not (extra / path.relative_to(site)).is_file():
                path.unlink()
                done += 1
    return done
