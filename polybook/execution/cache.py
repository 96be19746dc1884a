"""Execution cache keyed by content: code, environment and the library a notebook sees."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from polybook.fsutil import write_atomic
from polybook.meta import RunInfo, cell_meta, notebook_meta, update_cell_meta, update_notebook_meta
from polybook.nb import reads, writes

CACHE_VERSION = "1"


def notebook_key(nb: NotebookNode, framework: str, environment: str, library: str) -> str:
    """Hash of what execution depends on: code cells (not prose), env pins, visible library."""
    digest = hashlib.sha256()
    for part in (CACHE_VERSION, framework, environment, library):
        digest.update(part.encode())
        digest.update(b"\0")
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        meta = cell_meta(cell)
        record = {
            "source": cell.source,
            "requires": meta.requires.to_json() if meta.requires else {},
            "timeout": meta.timeout,
        }
        digest.update(json.dumps(record, sort_keys=True).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def adopt_outputs(fresh: NotebookNode, cached: NotebookNode) -> NotebookNode:
    """``fresh`` (this build's notebook) with the outputs of a cached run of the same code.

    The key guarantees the same code cells in the same order; prose, cell ids and source
    lines may have moved since, so they are taken from ``fresh``.
    """
    merged = copy.deepcopy(fresh)
    old_cells = [c for c in cached.cells if c.cell_type == "code"]
    new_cells = [c for c in merged.cells if c.cell_type == "code"]
    for new, old in zip(new_cells, old_cells, strict=True):
        new.outputs = old.get("outputs", [])
        new.execution_count = old.get("execution_count")
        if "execution" in old.metadata:
            new.metadata["execution"] = old.metadata["execution"]
        skipped = cell_meta(old).skipped
        if skipped:
            update_cell_meta(new, skipped=skipped)
    made = notebook_meta(cached)
    update_notebook_meta(merged, run=made.run, key=made.key)
    return merged


@dataclass(frozen=True)
class ExecutionCache:
    """A plain directory of executed notebooks named by key; safe to copy between hosts."""

    root: Path

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.ipynb"

    def get(self, key: str, host_gpus: int) -> NotebookNode | None:
        """The cached run, if one exists that ran at least what this host could run."""
        path = self._path(key)
        if not path.is_file():
            return None
        try:
            nb = reads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        run = notebook_meta(nb).run or RunInfo()
        if run.host_gpus < host_gpus and run.skipped > 0:
            return None  # made on a smaller host: this one can run more of it
        return nb

    def put(self, key: str, nb: NotebookNode) -> None:
        write_atomic(self._path(key), writes(nb))

    def clear(self) -> int:
        count = sum(1 for _ in self.root.rglob("*.ipynb")) if self.root.is_dir() else 0
        shutil.rmtree(self.root, ignore_errors=True)
        return count
