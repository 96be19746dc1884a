"""The site's extra files (``_build/site_extra``: notebooks for download, the library's wheel,
the books and decks), copied into the site by the build itself, not by Sphinx.

So they need not be ready when Sphinx starts: the download notebooks and the wheel are made
while Sphinx writes the pages, and a change to them alone runs no Sphinx at all. A copy is
made where the site's file differs from its source in size or modification time (copies
keep the source's), through a temporary file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from polybook.fsutil import files_under, same_stamp, sync_files


def publish_extras(extra: Path, site: Path, owned: Iterable[str]) -> int:
    """Copy the files under ``extra`` into ``site`` where they differ, and remove the site's
    files under the folders ``owned`` (names under ``extra``) that ``extra`` no longer has;
    how many files were copied or removed."""
    return sync_files(files_under(extra), site, same_stamp, prune=owned)
