"""Execution cache keyed by content: code, environment and the library a notebook uses.

Entries are executed notebooks named by key, immutable once written. The cache is a local
folder (``_build/cache/exec``) or, with ``[build] cache``, any fsspec location (a shared
folder, ``s3://…``, ``gs://…``) read through that local folder.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from polybook.fsutil import write_atomic
from polybook.library.canonical import KEY_FORMAT
from polybook.library.usage import cell_digest
from polybook.memo import FileMemo
from polybook.meta import RunInfo, cell_meta, notebook_meta, update_cell_meta, update_notebook_meta
from polybook.nb import copy_notebook, reads, writes

logger = logging.getLogger("polybook")
CACHE_VERSION = "3"
# What each key format hashes first (format 1, ast.dump's text, hashed "2")
VERSIONS = {1: "2", KEY_FORMAT: CACHE_VERSION}


@dataclass(frozen=True)
class CacheKey:
    """What a notebook's run depends on, built in this one place: its code cells by meaning
    (not prose, comments or layout), the environment (its pins' identity), the device class
    of its outputs (for a notebook whose outputs depend on the device), the library code it
    uses and how its kernel draws figures ([html] figure_format). :attr:`digest` names its
    cache entry."""

    framework: str
    cells: tuple[str, ...]  # each code cell's record: its meaning, its needs, its limit
    library: str
    environment: str = ""  # "" in a code key, which frozen outputs are matched by
    device_class: str = ""  # "" for a notebook whose outputs do not depend on the device
    figures: str = ""  # the kernel's figure format, [html] figure_format
    key_format: int = KEY_FORMAT  # see polybook.library.canonical

    @classmethod
    def of(
        cls, nb: NotebookNode, framework: str, library: str, figures: str = "", dialect: str = ""
    ) -> CacheKey:
        """The code key of ``nb`` drawing figures as ``figures``: no environment, no device
        class. ``dialect`` (a Python version): the key of format 1 that Python made, with
        ``library`` made so too."""
        records = []
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            meta = cell_meta(cell)
            record = {
                "code": cell_digest(cell.source, dialect),
                "requires": meta.requires.to_json() if meta.requires else {},
                "timeout": meta.timeout,
            }
            records.append(json.dumps(record, sort_keys=True))
        key_format = 1 if dialect else KEY_FORMAT
        return cls(framework, tuple(records), library, figures=figures, key_format=key_format)

    def on(self, environment: str, device_class: str = "") -> CacheKey:
        """This key for a run in ``environment``, on hosts of ``device_class``."""
        return replace(self, environment=environment, device_class=device_class)

    @property
    def digest(self) -> str:
        environment = self.environment
        if self.device_class:
            environment = f"{environment}|{self.device_class}"
        digest = hashlib.sha256()
        version = VERSIONS[self.key_format]
        for part in (version, self.framework, environment, self.library, self.figures):
            digest.update(part.encode())
            digest.update(b"\0")
        for record in self.cells:
            digest.update(record.encode())
            digest.update(b"\0")
        return digest.hexdigest()


def adopt_outputs(fresh: NotebookNode, cached: NotebookNode) -> NotebookNode:
    """``fresh`` (this build's notebook) with (copies of) the outputs of a cached run of the
    same code.

    The key guarantees the same code cells in the same order; prose, cell ids and source
    lines may have moved since, so they are taken from ``fresh``.
    """
    merged = copy_notebook(fresh)
    old_cells = [c for c in cached.cells if c.cell_type == "code"]
    new_cells = [c for c in merged.cells if c.cell_type == "code"]
    for new, old in zip(new_cells, old_cells, strict=True):
        new.outputs = [copy_notebook(out) for out in old.get("outputs", [])]  # its own
        new.execution_count = old.get("execution_count")
        if "execution" in old.metadata:
            new.metadata["execution"] = copy_notebook(old.metadata["execution"])
        skipped = cell_meta(old).skipped
        if skipped:
            update_cell_meta(new, skipped=skipped)
    made = notebook_meta(cached)
    update_notebook_meta(merged, run=made.run, key=made.key, key_format=made.key_format)
    return merged


def gpus_wanted(nb: NotebookNode) -> int:
    """The most GPUs one of the notebook's cells needs."""
    return max((cell_meta(c).gpus for c in nb.cells if c.cell_type == "code"), default=0)


def _entry_name(key: str, run: RunInfo | None) -> str:
    """``KEY.ipynb`` for a complete run; ``KEY.gN.ipynb`` for one that skipped cells on a
    host with N GPUs (a bigger host makes its own entry, so none is ever replaced)."""
    partial = run is not None and run.skipped > 0
    return f"{key}.g{run.host_gpus}.ipynb" if partial and run else f"{key}.ipynb"


# Each local entry as parsed, while its file is unchanged (entries never change once written):
# a rebuild in the same process copies it out instead of parsing it again.
_PARSED: FileMemo[NotebookNode | None] = FileMemo(4096)


def _parse(path: Path) -> NotebookNode | None:
    """A cache entry's notebook; None where it cannot be read."""
    try:
        return reads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


class ExecutionCache:
    """Executed notebooks named by key, in ``local`` and, when ``shared`` names another
    place (a folder or an fsspec URL), there too: read through ``local``, written to both."""

    def __init__(
        self, local: Path, shared: str = "", editions: Mapping[str, Path] | None = None
    ) -> None:
        self.local = local
        self.shared = "" if not shared or _same_folder(shared, local) else shared
        self._fs: Any = None
        # Other editions' local caches, read only: a page whose code is the same as theirs
        # takes their run (the key holds code, environment and library, never prose).
        self.editions = {n: p for n, p in (editions or {}).items() if p != local}
        self.borrowed: list[str] = []  # the edition of each entry taken from one

    @property
    def root(self) -> Path:
        return self.local

    def _store(self) -> tuple[Any, str]:
        if self._fs is None:
            import fsspec

            self._fs, self._base = fsspec.core.url_to_fs(self.shared)
        return self._fs, self._base

    def _fetch(self, name: str) -> bytes | None:
        """An entry of the shared cache, copied into the local folder; None if absent."""
        if not self.shared:
            return None
        fs, base = self._store()
        try:
            data: bytes = fs.cat_file(f"{base}/{name}")
        except FileNotFoundError:
            return None
        write_atomic(self.local / name, data)
        return data

    def _borrow(self, name: str) -> bytes | None:
        """An entry of another edition's cache, copied into the local folder."""
        for edition, folder in self.editions.items():
            path = folder / name
            if path.is_file():
                data = path.read_bytes()
                write_atomic(self.local / name, data)
                self.borrowed.append(edition)
                return data
        return None

    def get(self, key: str, host_gpus: int, wanted: int = 0) -> NotebookNode | None:
        """The cached run, if one exists that ran at least what this host could run:
        complete, else made on a host with as many GPUs or more (``wanted``: the most a
        cell of the notebook needs). It is kept for the next build of this process: the
        caller reads it (:func:`adopt_outputs` copies what it takes), never changes it."""
        names = [f"{key}.ipynb"]  # then runs that badged cells, biggest host first: one
        # of a host like this one too (a cell it badged at run time, it badges again)
        names += [f"{key}.g{n}.ipynb" for n in range(max(wanted - 1, host_gpus), host_gpus - 1, -1)]
        for name in (f"{key[:2]}/{n}" for n in names):
            path = self.local / name
            if path.is_file():
                nb = _PARSED.value([path], functools.partial(_parse, path))
                if nb is None:
                    continue
            else:
                data = self._fetch(name)
                data = data if data is not None else self._borrow(name)
                if data is None:
                    continue
                try:
                    nb = reads(data.decode("utf-8"))
                except (UnicodeDecodeError, ValueError):
                    continue
            run = notebook_meta(nb).run or RunInfo()
            if run.host_gpus < host_gpus and run.skipped > 0:
                continue  # made on a smaller host: this one can run more of it
            return nb
        return None

    def put(self, key: str, nb: NotebookNode) -> None:
        """Write the entry here, then publish it (put-if-absent: entries never change)."""
        name = f"{key[:2]}/{_entry_name(key, notebook_meta(nb).run)}"
        data = writes(nb).encode("utf-8")
        write_atomic(self.local / name, data)
        if not self.shared:
            return
        fs, base = self._store()
        target = f"{base}/{name}"
        if _is_local(fs):
            if not Path(target).exists():
                write_atomic(Path(target), data)
            return
        fs.makedirs(f"{base}/{key[:2]}", exist_ok=True)
        with contextlib.suppress(FileExistsError):  # a concurrent build was first: as good
            fs.pipe_file(target, data, mode="create")

    def clear(self) -> int:
        """Empty the local folder (a shared cache is left alone); returns the entries."""
        root = self.local
        count = sum(1 for _ in root.rglob("*.ipynb")) if root.is_dir() else 0
        shutil.rmtree(root, ignore_errors=True)
        return count


def _is_local(fs: Any) -> bool:
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _same_folder(shared: str, local: Path) -> bool:
    if "://" in shared and not shared.startswith("file://"):
        return False
    return Path(shared.removeprefix("file://")).resolve() == local.resolve()
