"""The files of the outputs that Sphinx does not make (the students' notebooks, the slides):
each written atomically and only when its bytes change, so a rebuild of an unchanged book
rewrites nothing; files a previous build left that this one does not make are removed, but
for those a failed page keeps (its last good files)."""

from __future__ import annotations

from pathlib import Path

from polybook.fsutil import TEMP_SUFFIX, write_atomic


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


def last_good(folder: Path, names: list[str]) -> set[Path]:
    """The files ``names`` (relative to ``folder``) of a page whose notebook failed in this
    build: what an earlier build wrote of them stays."""
    return {folder / name for name in names}


def remove_stale(folder: Path, keep: set[Path]) -> int:
    """Delete files under ``folder`` not in ``keep`` (a write in progress apart), then empty
    folders; returns how many files went."""
    removed = 0
    for path in sorted(folder.rglob("*"), reverse=True) if folder.is_dir() else ():
        if path.is_file() and path not in keep and not path.name.endswith(TEMP_SUFFIX):
            path.unlink()
            removed += 1
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return removed
