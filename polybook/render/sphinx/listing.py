"""The book's pages looked for again only where its source folders changed.

Before each build Sphinx walks its whole source folder for the pages it holds (d2l-en:
917 files in 38 folders, some 10 ms of a served edit), though an edit adds and removes no
file. In the
process ``polybook serve`` keeps (:func:`.deferred.deferring`), each build's walk notes
every folder's modification time and names; the next build looks at those folders alone
and lists again the few whose time moved (an edited page's, written by rename): where every
folder holds the same names, the pages are those Sphinx found last, and the walk is skipped.
It is walked as before where a name came or went, where the last walk warned (a page found
twice: said again), and where the book has message catalogs (their pages' dependencies are
noted by the walk).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from polybook.render.sphinx.deferred import deferring

logger = logging.getLogger(__name__)
SKIPPED = "pages as found before: the source folders hold the same files"

Folders = dict[str, tuple[int, frozenset[str]]]  # folder -> (modification time, names)


def folders(root: Path) -> Folders:
    """Every folder under ``root`` (itself included), with its time and entries' names."""
    found: Folders = {}
    waiting = [str(root)]
    while waiting:
        folder = waiting.pop()
        names: set[str] = set()
        with os.scandir(folder) as entries:
            for entry in entries:
                names.add(entry.name)
                if entry.is_dir(follow_symlinks=False):
                    waiting.append(entry.path)
        found[folder] = (os.stat(folder).st_mtime_ns, frozenset(names))
    return found


def unchanged(kept: Folders) -> bool:
    """Whether each folder of ``kept`` holds the same names (those whose time moved are
    listed again, and their new time kept)."""
    for folder, (mtime, names) in list(kept.items()):
        try:
            now = os.stat(folder).st_mtime_ns
            if now != mtime:
                if frozenset(os.listdir(folder)) != names:
                    return False
                kept[folder] = (now, names)
        except OSError:
            return False
    return True


class Listing:
    """The last walk of this process's source folder, where it may stand for the next."""

    def __init__(self) -> None:
        self.kept: Folders = {}

    def find_files(
        self, method: Callable[..., None], env: BuildEnvironment, config: Any, builder: Any
    ) -> None:
        srcdir = Path(env.srcdir)
        if self.kept and env.project.docnames and unchanged(self.kept):
            logger.info(SKIPPED)
            return
        self.kept = {}
        app: Any = getattr(env, "_app", None)
        warned = getattr(app, "_warncount", 0)
        method(env, config, builder)
        catalogs = any((srcdir / d).exists() for d in config.locale_dirs)
        if deferring() and not catalogs and getattr(app, "_warncount", 0) == warned:
            with contextlib.suppress(OSError):  # a folder gone meanwhile: walked next time
                self.kept = folders(srcdir)


LISTING = Listing()


def setup(app: Sphinx) -> None:
    method: Any = BuildEnvironment.find_files
    if getattr(method, "pb_listed", False):
        return

    def find_files(env: BuildEnvironment, config: Any, builder: Any) -> None:
        LISTING.find_files(method, env, config, builder)

    find_files.pb_listed = True  # type: ignore[attr-defined]
    BuildEnvironment.find_files = find_files  # type: ignore[method-assign,assignment]
