"""Files a book names, kept inside the book.

A page may pull files into the site and the PDF: includes, raw and CSV files, images,
downloads; the configuration names more (resources, the bibliography, a logo). Each must lie
inside the book's root, or inside a folder that ``[build] allowed_paths`` names, once every
symbolic link on the way is followed. :class:`Confinement` resolves such a name the way the
page's reader expects (relative to the file that names it; a leading ``/`` is the book's
root, as in Sphinx) and refuses one that leaves: a book built from a contributor's pull
request cannot read the host's files into its pages.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

ALLOWED_KEY = "[build] allowed_paths"
SCHEMES = ("http://", "https://", "ftp://", "data:", "mailto:", "file://")


class Outside(Exception):
    """A name that resolves outside the book and every allowed folder; the text says where
    it leads."""


def is_url(name: str) -> bool:
    """Whether ``name`` is a URL rather than a file (``file://`` URLs are files)."""
    return name.lower().startswith(SCHEMES[:-1]) or "://" in name.split("/", 1)[0]


@dataclass(frozen=True)
class Confinement:
    """The folders a book may read files from: its root and the allowed ones (resolved)."""

    root: Path
    allowed: tuple[Path, ...] = ()
    # Folders' real paths, found once, for a pass over many files (see :meth:`walking`).
    folders: dict[str, str] | None = field(default=None, compare=False, repr=False)

    def walking(self) -> Confinement:
        """This confinement for one pass over a book's files: the real path of each folder
        is found once (each file's own link is still followed); files that change during
        the pass are checked as the folders were when the pass first met them."""
        return replace(self, folders={})

    def _real(self, path: Path | str) -> str:
        """``path``'s real path (:func:`os.path.realpath`), its folder's found once."""
        if self.folders is None:
            return os.path.realpath(path)
        folder, name = os.path.split(os.fspath(path))
        if name in ("", ".", "..") or not folder:
            return os.path.realpath(path)
        real = self.folders.get(folder)
        if real is None:
            real = self.folders[folder] = os.path.realpath(folder)
        full = os.path.join(real, name)
        return os.path.realpath(full) if os.path.islink(full) else full

    @classmethod
    def of(cls, root: Path, allowed: Iterable[str] = ()) -> Confinement:
        """``root`` and the ``allowed`` folders (relative to it, or absolute), resolved."""
        folders = tuple((root / Path(a).expanduser()).resolve() for a in allowed)
        return cls(root.resolve(), folders)

    def holds(self, path: Path | str) -> bool:
        """Whether ``path`` (symbolic links followed) lies in the book or an allowed folder."""
        real = self._real(path)
        for folder in (self.root, *self.allowed):
            inside = str(folder)
            if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
                return True
        return False

    def locate(self, name: str, base: Path) -> Path:
        """The file ``name`` stands for, named by a file in the folder ``base``, unchecked.
        A leading ``/`` is the book's root (Sphinx's way), unless the path as written lies
        in the book or an allowed folder, or is a file outside when the book has none of
        that name; ``file://`` URLs are read as paths."""
        written = Path(name.strip().removeprefix("file://"))
        target = Path(os.path.normpath(base / written))
        if written.is_absolute() and not self.holds(written):
            rooted = Path(os.path.normpath(self.root / Path(*written.parts[1:])))
            target = rooted if rooted.exists() or not written.exists() else target
        return target

    def resolve(self, name: str, base: Path) -> Path:
        """:meth:`locate`, then :meth:`check`: raises :class:`Outside`."""
        target = self.locate(name, base)
        self.check(target, name)
        return target

    def check(self, target: Path, name: str = "") -> None:
        """Raise :class:`Outside` unless ``target`` lies in the book or an allowed folder."""
        if self.holds(target):
            return
        shown = repr(name or str(target))
        normal = Path(os.path.normpath(target))
        inside = any(normal.is_relative_to(f) for f in (self.root, *self.allowed))
        link = self._link_on_the_way(normal) if inside else None
        if link is None:
            raise Outside(f"{shown} is outside the book ({normal})")
        real = os.path.realpath(link)
        raise Outside(f"{shown} leads outside the book: {self.relative(link)} is a link to {real}")

    def _link_on_the_way(self, target: Path) -> Path | None:
        """The first symbolic link on the way to ``target`` that leads outside, if any."""
        current = Path(target.anchor)
        for part in target.parts[1:]:
            current = current / part
            if current.is_symlink() and not self.holds(current):
                return current
        return None

    def links_out(self, folder: Path) -> list[Path]:
        """Symbolic links under ``folder`` that lead outside (a link to a folder that
        leads out is named once, and not followed)."""
        found: list[Path] = []
        pending = [str(folder)]
        while pending:
            try:
                entries = list(os.scandir(pending.pop()))
            except OSError:  # not a folder (any more)
                continue
            for entry in entries:
                if entry.is_symlink():  # not followed
                    if not self.holds(Path(entry.path)):
                        found.append(Path(entry.path))
                elif entry.is_dir():
                    pending.append(entry.path)
        return sorted(found)

    def relative(self, path: Path) -> str:
        """``path`` as the book names it: relative to the root where it lies inside."""
        normal = Path(os.path.normpath(path))
        if normal.is_relative_to(self.root):
            return normal.relative_to(self.root).as_posix()
        return str(normal)


def allowed_hint() -> str:
    return f"pages may read files inside the book, or in a folder {ALLOWED_KEY} names"
