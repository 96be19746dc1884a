"""A venv made so that no half-made one is ever seen: built at a sibling temporary path,
its scripts made to name the final path, then renamed into place, behind a lock per venv.

A set-up that dies (SIGKILL, a full disk, a failed install) leaves only the temporary
folder, which no reader takes for a venv (its name is hidden) and the next set-up removes.
Two set-ups of one venv at once take turns: the second waits, then finds it made. The
same calls make any venv polybook needs: a framework's, a side environment's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from polybook.diagnostics import Location
from polybook.environments import installer

logger = logging.getLogger("polybook")

PARTIAL = ".partial-"  # a venv being built: .<name>.partial-<id>
RETIRED = ".retired-"  # a venv being replaced: .<name>.retired-<id>
SCRIPT_LIMIT = 1 << 20  # bin/ files larger than this are programs, not scripts


@contextlib.contextmanager
def locked(lock_file: Path, what: str) -> Iterator[None]:
    """Hold the lock of one venv (released when the process ends, however it ends); say
    once that this set-up waits for another."""
    import filelock  # only where a venv is set up: not on every command's start

    lock_file.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(lock_file)
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        logger.info("waiting for another set-up of %s to finish", what)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def leftovers(path: Path) -> list[Path]:
    """What set-ups of the venv at ``path`` that did not finish left beside it."""
    return sorted(path.parent.glob(f".{path.name}{PARTIAL}*")) + sorted(
        path.parent.glob(f".{path.name}{RETIRED}*")
    )


def _remove(path: Path) -> None:
    """Remove a folder (a link: only the link); what a process still writing there adds
    after is left for the next set-up."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def clear_leftovers(path: Path) -> list[Path]:
    """Remove what unfinished set-ups of ``path`` left (call with its lock held): the
    folders removed."""
    found = leftovers(path)
    for stale in found:
        _remove(stale)
    return found


def _point_scripts_at(venv_dir: Path, built_at: Path, final: Path) -> None:
    """Rewrite the paths a venv's scripts and settings hold (shebangs, ``activate``,
    ``pyvenv.cfg``) from where it was built to where it goes."""
    old, new = str(built_at).encode(), str(final).encode()
    files = [venv_dir / "pyvenv.cfg", *(venv_dir / "bin").iterdir()]
    for file in files:
        if file.is_symlink() or not file.is_file() or file.stat().st_size > SCRIPT_LIMIT:
            continue
        data = file.read_bytes()
        if old in data:
            mode = file.stat().st_mode
            file.write_bytes(data.replace(old, new))
            file.chmod(mode)


def create_venv(
    path: Path,
    requirements: Sequence[Path],
    marks: Mapping[str, str],
    failed: str,
    compile_all: bool = True,
) -> str:
    """Make the venv at ``path``, with the packages of ``requirements`` and the files
    ``marks`` (name -> text, written last: what says it is complete), and put it in place
    of whatever ``path`` held; the installer that installed them (``compile_all``: see
    :func:`.installer.install`). Call with its lock held. Raises a located error naming
    ``failed`` (what could not be set up) with the installer's last lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.parent / f".{path.name}{PARTIAL}{uuid.uuid4().hex[:8]}"
    where = Location(str(requirements[0]) if requirements else str(path))
    try:
        installer.make_venv(building, where, failed)
        used = installer.current().name
        if requirements:
            python = building / "bin" / "python"
            named = [f"--requirement={r}" for r in requirements]
            used = installer.install(python, named, where, failed, compile_all=compile_all)
        _point_scripts_at(building, building, path)
        for name, text in marks.items():
            (building / name).write_text(text, encoding="utf-8")
        _replace(building, path)
    except BaseException:
        _remove(building)
        raise
    return used


def _replace(new: Path, path: Path) -> None:
    """Rename ``new`` to ``path``: at once where nothing is there; else what is there is
    renamed away first (a moment with no venv, never a half-made one) and removed."""
    try:
        os.rename(new, path)
        return
    except OSError:
        if not (path.exists() or path.is_symlink()):
            raise
    retired = path.parent / f".{path.name}{RETIRED}{uuid.uuid4().hex[:8]}"
    os.rename(path, retired)
    os.rename(new, path)
    _remove(retired)
