"""The typed schema of polybook's notebook metadata (``metadata["polybook"]``).

Every stage reads and writes that metadata through these dataclasses, never by string key:
:class:`CellMeta` on cells, :class:`NotebookMeta` on notebooks, :class:`RunInfo` for the
record of one execution. Each has ``to_json`` / ``from_json``; unknown keys are ignored on
reading, so notebooks written by an older polybook still load.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from polybook.nb import node

if TYPE_CHECKING:
    from nbformat import NotebookNode

KEY = "polybook"


@dataclass(frozen=True)
class Requires:
    """GPUs a cell needs: declared with ``#@requires gpus=N`` or inferred from its code."""

    gpus: int
    declared: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"gpus": self.gpus, "declared": self.declared}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Requires:
        return cls(int(data.get("gpus", 0)), bool(data.get("declared", False)))


@dataclass(frozen=True)
class CellMeta:
    """Where a cell comes from in the author's page, and what its marks said.

    ``source_map[k]`` is the source line of the cell's line ``k + 1``.
    """

    line: int = 0
    source_map: tuple[int, ...] = ()
    frameworks: tuple[str, ...] = ()
    timeout: int | None = None
    requires: Requires | None = None
    skipped: str = ""  # why the cell was not run (the badge's text)

    @property
    def gpus(self) -> int:
        return self.requires.gpus if self.requires else 0

    def source_line(self, cell_line: int) -> int:
        """The page line of the cell's 1-based line ``cell_line`` (the cell's line if unknown)."""
        if 0 < cell_line <= len(self.source_map):
            return self.source_map[cell_line - 1]
        return self.line

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"line": self.line}
        if self.source_map:
            data["source_map"] = list(self.source_map)
        if self.frameworks:
            data["frameworks"] = list(self.frameworks)
        if self.timeout is not None:
            data["timeout"] = self.timeout
        if self.requires is not None:
            data["requires"] = self.requires.to_json()
        if self.skipped:
            data["skipped"] = self.skipped
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CellMeta:
        requires = data.get("requires")
        timeout = data.get("timeout")
        return cls(
            line=int(data.get("line", 0)),
            source_map=tuple(int(n) for n in data.get("source_map", ())),
            frameworks=tuple(str(f) for f in data.get("frameworks", ())),
            timeout=int(timeout) if timeout is not None else None,
            requires=Requires.from_json(requires) if requires else None,
            skipped=str(data.get("skipped", "")),
        )


@dataclass(frozen=True)
class RunInfo:
    """How a notebook's outputs were made: host, time, framework version."""

    host_gpus: int = 0
    skipped: int = 0
    seconds: float = 0.0
    date: str = ""
    framework_version: str = ""
    device_class: str = ""  # cpu or cuda (see polybook.environments.devices); "": not recorded
    gpu: str = ""  # the GPU's model, driver and CUDA version, as nvidia-smi says them
    rekeyed: str = ""  # how a frozen run was re-keyed (polybook freeze --rekey)
    store: str = ""  # the outputs store's manifest the outputs were read from (outputs_store)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "host_gpus": self.host_gpus,
            "skipped": self.skipped,
            "seconds": self.seconds,
            "date": self.date,
            "framework_version": self.framework_version,
            "device_class": self.device_class,
        }
        extra = (("gpu", self.gpu), ("rekeyed", self.rekeyed), ("store", self.store))
        data.update({k: v for k, v in extra if v})
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunInfo:
        return cls(
            host_gpus=int(data.get("host_gpus", 0)),
            skipped=int(data.get("skipped", 0)),
            seconds=float(data.get("seconds", 0.0)),
            date=str(data.get("date", "")),
            framework_version=str(data.get("framework_version", "")),
            device_class=str(data.get("device_class", "")),
            gpu=str(data.get("gpu", "")),
            rekeyed=str(data.get("rekeyed", "")),
            store=str(data.get("store", "")),
        )


@dataclass(frozen=True)
class NotebookMeta:
    """The page and framework of a notebook; after execution, its run and cache key."""

    source: str = ""
    framework: str = ""
    run: RunInfo | None = None
    key: str = ""
    code: str = ""  # the key of its code alone (no environment): what frozen outputs match
    key_format: int = 0  # the format of its keys (polybook.library.canonical); 0: not recorded
    # What the page's ``#required_libs(...)`` (at ``required_line``) installs, in order.
    required_libs: tuple[str, ...] = ()
    required_line: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"source": self.source, "framework": self.framework}
        if self.required_libs:
            data["required_libs"] = {
                "libraries": list(self.required_libs),
                "line": self.required_line,
            }
        if self.run is not None:
            data["run"] = self.run.to_json()
        if self.key:
            data["key"] = self.key
        if self.code:
            data["code"] = self.code
        if self.key_format:
            data["key_format"] = self.key_format
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NotebookMeta:
        run = data.get("run")
        required = data.get("required_libs") or {}
        return cls(
            required_libs=tuple(str(r) for r in required.get("libraries", ())),
            required_line=int(required.get("line", 0)),
            source=str(data.get("source", "")),
            framework=str(data.get("framework", "")),
            run=RunInfo.from_json(run) if run else None,
            key=str(data.get("key", "")),
            code=str(data.get("code", "")),
            key_format=int(data.get("key_format", 0) or 0),
        )


def cell_meta(cell: NotebookNode) -> CellMeta:
    return CellMeta.from_json(dict(cell.metadata.get(KEY, {})))


def _node(data: dict[str, Any]) -> NotebookNode:
    """``data`` as a node, as nbformat's ``from_dict`` makes it: dict values become nodes
    (metadata holds no dicts inside lists, so lists are kept as they are)."""
    return node({k: _node(v) if isinstance(v, dict) else v for k, v in data.items()})


def set_cell_meta(cell: NotebookNode, meta: CellMeta) -> None:
    cell.metadata[KEY] = _node(meta.to_json())


def notebook_meta(nb: NotebookNode) -> NotebookMeta:
    return NotebookMeta.from_json(dict(nb.metadata.get(KEY, {})))


def set_notebook_meta(nb: NotebookNode, meta: NotebookMeta) -> None:
    nb.metadata[KEY] = meta.to_json()


def update_cell_meta(cell: NotebookNode, **changes: Any) -> CellMeta:
    """Replace some fields of a cell's metadata; returns the new value."""
    meta = replace(cell_meta(cell), **changes)
    set_cell_meta(cell, meta)
    return meta


def update_notebook_meta(nb: NotebookNode, **changes: Any) -> NotebookMeta:
    """Replace some fields of a notebook's metadata; returns the new value."""
    meta = replace(notebook_meta(nb), **changes)
    set_notebook_meta(nb, meta)
    return meta
