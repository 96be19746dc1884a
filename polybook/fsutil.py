"""File writes that never leave a half-written file behind, and the build folder's lock."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path

from polybook.memo import FileMemo, Stamp

TEMP_SUFFIX = ".pbtmp"


def file_stamp(path: Path) -> tuple[int, int] | None:
    """``path``'s modification time (ns) and size; None where it cannot be read. A file
    whose stamp is unchanged is taken as unchanged by what keeps a result of reading it."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


# Files' content hashes while they are unchanged: ``polybook serve`` fingerprints the book at
# each rebuild, and an edit then reads the edited files again, not the whole book.
_HASHED: FileMemo[bytes | None] = FileMemo(100_000)


def file_hash(path: Path) -> bytes | None:
    """The SHA-256 of ``path``'s content, None if it is not a file (or cannot be read)."""
    return _HASHED.value([path], lambda: _read_hash(path))


def tree_files(
    folder: Path, link_kept: Callable[[Path], bool] | None = None
) -> list[tuple[str, str, Stamp]]:
    """The files under ``folder`` as ``rglob`` finds them (links to files followed, no
    folder behind a link entered, ``__pycache__`` left out), in order of their path in it:
    that path (POSIX), the file's own path, and its stamp (as :class:`FileMemo` keys files).
    With ``link_kept``, a link only where it says so (a file that is no link is kept).
    One walk, no path object per file: the book's folders are walked at every build."""
    found: list[tuple[str, str, Stamp]] = []
    pending = [("", str(folder))]
    while pending:
        inside, top = pending.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:  # not a folder (any more)
            continue
        for entry in entries:
            if entry.name == "__pycache__":
                continue
            name = inside + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((name + "/", entry.path))
                elif entry.is_file():
                    if link_kept and entry.is_symlink() and not link_kept(Path(entry.path)):
                        continue
                    info = entry.stat()
                    stamp = info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns
                    found.append((name, entry.path, stamp))
            except OSError:  # gone while walked
                continue
    return sorted(found)


def tree_hash(
    digest: hashlib._Hash, folder: Path, prefix: str = "", skipped: Collection[str] = ()
) -> None:
    """Add the names (``prefix`` and their path in ``folder``) and contents of the files
    under ``folder`` (see :func:`tree_files`) to ``digest``, less the ``skipped`` paths."""
    for name, path, stamp in tree_files(folder):
        if path in skipped:
            continue
        digest.update(f"{prefix}{name}\0".encode())
        digest.update(_stamped_hash(path, stamp) or b"-")


def _stamped_hash(path: str, stamp: Stamp) -> bytes | None:
    """:func:`file_hash` of a file whose stamp a walk found (:func:`tree_files`)."""
    return _HASHED.stamped(path, stamp, lambda: _read_hash(Path(path)))


def _read_hash(path: Path) -> bytes | None:
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return None


def write_atomic(path: Path, data: str | bytes) -> bool:
    """Write ``data`` to ``path`` via a temporary file and rename; False if unchanged.

    The file gets the mode a plain ``open()`` would give it (0666 less the umask), or keeps
    the mode of the file it replaces.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path.is_file() and path.read_bytes() == raw:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except OSError:
        mode = None  # a new file: open()'s
    write_new(path, raw, mode)
    return True


def write_new(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` in a folder that exists, through a temporary file of this
    thread (created, never opened through a link) renamed over it, with ``mode`` (else
    open()'s): without :func:`write_atomic`'s comparison, for files the caller knows to be
    new or outdated (a cache's entries: less than half write_atomic's time each)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}{TEMP_SUFFIX}")
    try:
        try:
            handle = open(tmp, "xb")  # noqa: SIM115
        except FileExistsError:  # left by a process of the same id that was killed
            tmp.unlink()
            handle = open(tmp, "xb")  # noqa: SIM115
        with handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


Same = Callable[[Path, Path], bool]  # whether a copy (the second) is its source (the first)


def same_bytes(source: Path, copy: Path) -> bool:
    return copy.is_file() and copy.read_bytes() == source.read_bytes()


def same_stamp(source: Path, copy: Path) -> bool:
    """Of the same size and modification time (copies keep their source's)."""
    return file_stamp(copy) == file_stamp(source)


def files_under(folder: Path) -> dict[str, Path]:
    """The files under ``folder`` by their path in it (temporary files and ``__pycache__``
    left out)."""
    found = folder.rglob("*") if folder.is_dir() else ()
    return {
        path.relative_to(folder).as_posix(): path
        for path in found
        if path.is_file() and not path.name.endswith(TEMP_SUFFIX)
        if "__pycache__" not in path.parts
    }


def sync_files(
    wanted: Mapping[str, Path],
    folder: Path,
    same: Same = same_bytes,
    prune: Iterable[str] = ("",),
) -> int:
    """``folder`` made to hold ``wanted`` (a file's path in ``folder`` -> its source): each
    copied where ``same`` says it differs, through a temporary file and with its source's
    modification time; then, under each folder of ``prune`` ("": all of ``folder``), the
    files not wanted and the folders left empty removed. How many files were copied or
    removed."""
    done = 0
    for name, source in sorted(wanted.items()):
        target = folder / name
        if not same(source, target):
            write_atomic(target, source.read_bytes())
            shutil.copystat(source, target)
            done += 1
    for under in prune:
        top = folder / under
        for path in sorted(top.rglob("*"), reverse=True) if top.is_dir() else ():
            if path.is_file() and path.relative_to(folder).as_posix() not in wanted:
                path.unlink()
                done += 1
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    return done


def sync_tree(src: Path, dst: Path) -> bool:
    """Copy changed files of ``src`` (sub-folders included) into ``dst``; True if any."""
    return sync_files(files_under(src), dst, prune=()) > 0


def remove_stale_temps(folder: Path) -> int:
    """Delete temporary files a killed process left in ``folder``; returns how many."""
    count = 0
    for stale in folder.glob(f".*{TEMP_SUFFIX}") if folder.is_dir() else ():
        stale.unlink(missing_ok=True)
        count += 1
    return count


class Locked(Exception):
    """Another process holds the lock; ``holder`` is what it wrote there."""

    def __init__(self, holder: str) -> None:
        self.holder = holder
        super().__init__(holder)


@contextlib.contextmanager
def exclusive(
    lock_file: Path, wait: bool = True, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (``flock``, released when the process dies).

    When another process holds it: raise :class:`Locked` if not ``wait``, else call
    ``on_wait(holder)`` once and block until it is free.
    """
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            if not wait:
                raise Locked(holder) from None
            if on_wait is not None:
                on_wait(holder)
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
