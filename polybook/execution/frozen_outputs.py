"""Frozen outputs: a GPU host's results committed with the book, shown by CPU-only builds.

``polybook freeze PAGE…`` copies the outputs of the last build's runs of those pages'
device-dependent notebooks into ``_freeze/`` at the book root: one small JSON file per
notebook (``_freeze/<framework>/<page>.json``: the key of its code, the run's provenance,
each code cell's outputs) and each image once, named by its content
(``_freeze/files/<sha256>.png``). A build on a smaller device class whose cache has no run of
a bigger one shows them, with their provenance. The key covers the code and the library code
it uses, not the environment: a CPU build of the same code matches. When the code changed,
the entry is stale: reported (``[polybook.freeze.stale]``, saying what changed) and not shown.
An entry records its key's format and each cell's source; one of an older format is re-keyed
(:mod:`polybook.execution.frozen_keys`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import nbformat
from nbformat import NotebookNode

from polybook.diagnostics import Location, Reporter
from polybook.environments import devices
from polybook.execution.cache import CacheKey, ExecutionCache, gpus_wanted
from polybook.execution.frozen_keys import Legacy, match
from polybook.fsutil import write_atomic
from polybook.layout import FREEZE_DIR
from polybook.library.canonical import KEY_FORMAT, own_dialect
from polybook.library.usage import cell_digest
from polybook.memo import FileMemo, HeldMemo
from polybook.meta import RunInfo, cell_meta, notebook_meta, update_cell_meta, update_notebook_meta
from polybook.nb import copy_notebook, new_code_cell, new_notebook
from polybook.source.frozen import (
    check_frozen,
    entry_files,
    entry_images,
    frozen_image,
    read_entry,
    report_refused,
)

logger = logging.getLogger("polybook")

FORMAT = 2  # 2: the key's format, its library and figures parts, each cell's source
TEXT_IMAGES = {"image/svg+xml": "svg"}
BINARY_IMAGES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
# Each entry file validated while it is unchanged: why not shown, or "".
_VALIDATED: FileMemo[str] = FileMemo(4096)
# Each entry file as read while unchanged, each kept entry as a notebook: serve reads once.
_ENTRIES: FileMemo[tuple[dict[str, Any], str]] = FileMemo(4096)
_RUNS: HeldMemo[NotebookNode] = HeldMemo(4096)


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _provenance(run: RunInfo) -> dict[str, Any]:
    """What an entry records of its run: not how long it took, which a new run of the same
    code changes (an entry changes when its outputs do)."""
    data = run.to_json()
    del data["seconds"]
    return data


def _same_outputs(held: dict[str, Any], entry: dict[str, Any], code: CacheKey) -> bool:
    """Whether the entry ``held`` already says what ``entry`` (of the key ``code``) would:
    the same key, a run on the same device class, the same cells and outputs (their source
    lines aside, which prose above them moves). Its date and versions then stay: an entry
    changes when its outputs do."""

    def cells(found: dict[str, Any]) -> list[dict[str, Any]]:
        return [{k: v for k, v in c.items() if k != "line"} for c in found.get("cells", [])]

    run = held.get("run", {})
    return (
        held.get("code") == code.digest
        and held.get("key_format") == KEY_FORMAT
        and "seconds" not in run
        and run.get("device_class") == entry["run"].get("device_class")
        and cells(held) == cells(entry)
    )


class FrozenOutputs:
    """The ``_freeze/`` folder of a book."""

    def __init__(self, root: Path) -> None:
        self.folder = root / FREEZE_DIR

    def image(self, name: str) -> Path | None:
        """The file of ``_freeze/files/`` an entry's image ``name`` is (None: refused)."""
        return frozen_image(self.folder, name)

    def check(self, reporter: Reporter) -> None:
        """An error at its line for each image an entry names outside ``_freeze/files/``."""
        check_frozen(self.folder.parent, reporter)

    def _report(self, path: Path, reporter: Reporter) -> bool:
        return report_refused(self.folder, path, reporter)

    def _entry_files(self) -> list[Path]:
        return entry_files(self.folder)

    def entry_path(self, page: str, framework: str) -> Path:
        return self.folder / framework / (page.removesuffix(".md") + ".json")

    # Writing

    def _store(self, mime: str, value: Any) -> dict[str, str]:
        """An image's data as a file named by its content (written once)."""
        text = _text(value)
        data = text.encode() if mime in TEXT_IMAGES else base64.b64decode(text)
        ext = TEXT_IMAGES.get(mime) or BINARY_IMAGES[mime]
        name = f"files/{hashlib.sha256(data).hexdigest()}.{ext}"
        if not (self.folder / name).is_file():
            write_atomic(self.folder / name, data)
        return {"file": name}

    def _output(self, output: NotebookNode) -> dict[str, Any]:
        out: dict[str, Any] = json.loads(json.dumps(output))  # a plain copy
        out.pop("execution_count", None)  # a count of the run, not an output
        data = out.get("data", {})
        for mime in [m for m in data if m in TEXT_IMAGES or m in BINARY_IMAGES]:
            data[mime] = self._store(mime, data[mime])
        return out

    def write(self, page: str, framework: str, executed: NotebookNode, code: CacheKey) -> Path:
        """Freeze an executed notebook (with its ``run`` metadata), whose code key is
        ``code``."""
        meta = notebook_meta(executed)
        cells = [
            {
                "code": cell_digest(cell.source),
                "source": cell.source,
                "line": cell_meta(cell).line,
                "outputs": [self._output(o) for o in cell.get("outputs", [])],
                "skipped": cell_meta(cell).skipped,
            }
            for cell in executed.cells
            if cell.cell_type == "code"
        ]
        entry = {
            "format": FORMAT,
            "page": page,
            "framework": framework,
            "run": _provenance(meta.run or RunInfo()),
            "cells": cells,
        }
        held, _ = read_entry(self.entry_path(page, framework))
        if _same_outputs(held, entry, code):  # a new run of the same code, the same outputs
            return self.entry_path(page, framework)
        return self._save(entry, code)

    def _save(self, entry: dict[str, Any], code: CacheKey) -> Path:
        entry.update(
            format=FORMAT,
            key_format=KEY_FORMAT,
            code=code.digest,
            library=code.library,
            figures=code.figures,
        )
        target = self.entry_path(str(entry["page"]), str(entry["framework"]))
        write_atomic(target, json.dumps(entry, indent=1, sort_keys=True) + "\n")
        return target

    def rekey(self, entry: dict[str, Any], nb: NotebookNode, code: CacheKey, note: str) -> Path:
        """Store ``entry``, of ``nb``'s code in an older key format, under ``code``; ``note``
        (how it was re-keyed) joins its provenance."""
        sources = [c.source for c in nb.cells if c.cell_type == "code"]
        for cell, source in zip(entry.get("cells", []), sources, strict=True):
            cell.update(code=cell_digest(source), source=source)
        entry["run"] = {**entry.get("run", {}), "rekeyed": note}
        return self._save(entry, code)

    def collect(self) -> int:
        """Remove the files no entry names; returns how many files are kept."""
        named: set[str] = set()
        for path in self._entry_files():
            named |= entry_images(read_entry(path)[0])
        kept = 0
        for path in sorted((self.folder / "files").glob("*")):
            if f"files/{path.name}" in named:
                kept += 1
            else:
                path.unlink()
        return kept

    # Reading

    def find(
        self,
        place: tuple[str, str],
        nb: NotebookNode,
        code: CacheKey,
        legacy: Legacy,
        reporter: Reporter,
    ) -> dict[str, Any] | None:
        """The entry of this notebook (at ``place``: page, framework) when it matches
        ``code`` (``legacy``: its key in format 1, for an entry of that format); a stale one
        is reported, saying what changed."""
        page, framework = place
        path = self.entry_path(page, framework)
        if not path.is_file():
            return None
        where = Location(str(path.relative_to(self.folder.parent)))
        entry, problem = _ENTRIES.value([path], functools.partial(read_entry, path))
        if problem:
            reporter.warn(where, f"unreadable, not shown: {problem}", "freeze")
            return None
        if self._report(path, reporter):  # each at its line; nothing of the entry is read
            return None
        found = match(entry, nb, place, code, legacy)
        if not found.shown:
            reporter.warn(found.where or Location(page), found.message, "freeze.stale")
            return None
        if found.dialect:
            logger.info(
                "%s [%s]: the frozen outputs' key (format 1, Python %s's ast.dump) re-keyed:"
                " `polybook freeze --rekey` stores the new one",
                page,
                framework,
                found.dialect,
            )
            entry = {**entry, "code": code.digest}  # the kept entry stays as read
        code_cells = sum(1 for cell in nb.cells if cell.cell_type == "code")
        if len(entry.get("cells", [])) != code_cells:  # its key matches: edited by hand
            held = f"it holds {len(entry.get('cells', []))} cells, the page {code_cells}"
            reporter.warn(where, f"unreadable, not shown: {held}", "freeze")
            return None
        missing = sorted(f for f in entry_images(entry) if not (self.folder / f).is_file())
        if missing:
            reporter.warn(where, f"names {missing[0]}, which is missing: not shown", "freeze")
            return None
        invalid = self._invalid(path, entry)
        if invalid:
            reporter.warn(where, f"unreadable, not shown: {invalid}", "freeze")
            return None
        return entry

    def _invalid(self, path: Path, entry: dict[str, Any]) -> str:
        """Why ``entry`` (read from ``path``) is not a notebook's outputs, or "". Its images
        are named by their content, so the answer holds while the file is unchanged: a
        process that builds again (``polybook serve``) validates each entry once."""

        def validated() -> str:
            try:  # outputs as a notebook holds them, or none
                nbformat.validate(self.as_notebook(entry))
            except (ValueError, TypeError, nbformat.ValidationError) as exc:
                return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return ""

        return _VALIDATED.value([path], validated)

    def lend(
        self, entry: dict[str, Any], own_class: str, same: bool = False
    ) -> NotebookNode | None:
        """The entry as a notebook of outputs (as the cache holds them) when its run was on a
        bigger device class than ``own_class`` (``same``: or on the same one); else None."""
        run = RunInfo.from_json(entry.get("run", {}))
        ranks = devices.rank(run.device_class), devices.rank(own_class)
        if ranks[0] < ranks[1] or (ranks[0] == ranks[1] and not same):
            return None
        return self.as_notebook(entry)

    def as_notebook(self, entry: dict[str, Any]) -> NotebookNode:
        """The entry as a notebook of outputs: its code cells (without their code), each with
        its outputs and source line, and the run's provenance; kept while the entry is."""

        def make(_: Reporter) -> NotebookNode:
            return self._as_notebook(entry)

        return _RUNS.get((entry,), str(self.folder), make, Reporter(quiet=True))

    def _as_notebook(self, entry: dict[str, Any]) -> NotebookNode:
        nb = new_notebook()
        for number, frozen in enumerate(entry.get("cells", [])):
            cell = new_code_cell("", f"frozen-{number}")
            cell.outputs = [self._restore(o) for o in frozen.get("outputs", [])]
            cell.execution_count = frozen.get("execution_count")
            update_cell_meta(cell, line=int(frozen.get("line", 0)))
            if frozen.get("skipped"):
                update_cell_meta(cell, skipped=str(frozen["skipped"]))
            nb.cells.append(cell)
        update_notebook_meta(
            nb,
            source=str(entry.get("page", "")),
            framework=str(entry.get("framework", "")),
            run=RunInfo.from_json(entry.get("run", {})),
            key=f"frozen:{entry.get('code', '')}",
        )
        return nb

    def entries(self) -> list[dict[str, Any]]:
        """Every entry of the folder that reads, in the order of their files."""
        found = []
        for path in self._entry_files():
            entry, problem = read_entry(path)
            if not problem:
                found.append(entry)
        return found

    def _restore(self, stored: dict[str, Any]) -> NotebookNode:
        """An output as the entry stores it, its images read back (the entry unchanged)."""
        out = {**stored, "data": dict(stored.get("data", {}))} if "data" in stored else {**stored}
        if out.get("output_type") == "execute_result":
            out.setdefault("execution_count", None)
        data = out.get("data", {})
        for mime, value in list(data.items()):
            if isinstance(value, dict) and "file" in value:
                image = self.image(str(value["file"]))
                if image is None:  # refused by find and check: never read
                    del data[mime]
                    continue
                raw = image.read_bytes()
                binary = mime not in TEXT_IMAGES
                data[mime] = base64.b64encode(raw).decode("ascii") if binary else raw.decode()
        return cast(NotebookNode, nbformat.from_dict(out))  # type: ignore[no-untyped-call]


@dataclass(frozen=True)
class Found:
    """What a build has for a notebook: its cache key here, the key of its code, and the
    run to show (None: it must run), taken from ``_freeze/`` when ``frozen``."""

    key: str
    code: str
    run: NotebookNode | None = None
    frozen: bool = False
    stale: bool = False  # ``_freeze/`` holds an entry of it that is not shown


def find_run(
    cache: ExecutionCache,
    frozen: FrozenOutputs | None,
    place: tuple[str, str],
    nb: NotebookNode,
    code: CacheKey,
    identity: str,
    own_class: str,
    gpus: int,
    reporter: Reporter,
    legacy: Legacy,
) -> Found:
    """The run of notebook ``place`` (page, framework), whose code key is ``code``, to show
    on a host of ``own_class`` with ``gpus`` GPUs. A device-dependent notebook is keyed on
    the class; a cached run of a bigger class comes first, then a frozen one, then the
    host's own; a notebook that does not depend on the device shares one entry across
    hosts. ``frozen`` None: frozen outputs are not shown (a side build's); ``legacy``: the
    code key in format 1 as a Python made it, to re-key an entry of that format."""
    wanted = gpus_wanted(nb)
    entry = frozen.find(place, nb, code, legacy, reporter) if frozen else None
    stale = frozen is not None and entry is None and frozen.entry_path(*place).is_file()
    if not devices.device_dependent(nb):
        key = code.on(identity).digest
        run = cache.get(key, gpus, wanted) or _rekeyed(
            cache, legacy, key, (identity, ""), (gpus, wanted)
        )
        if run is None and frozen and entry is not None:  # [build] freeze = all
            return Found(key, code.digest, frozen.as_notebook(entry), frozen=True)
        return Found(key, code.digest, run, stale=stale)
    key = code.on(identity, own_class).digest
    for bigger in devices.bigger(own_class):
        lent = cache.get(code.on(identity, bigger).digest, gpus, wanted)
        if lent is not None:
            return Found(key, code.digest, lent)
    lent = frozen.lend(entry, own_class) if frozen and entry is not None else None
    if lent is not None:
        return Found(key, code.digest, lent, frozen=True)
    run = cache.get(key, gpus, wanted) or _rekeyed(
        cache, legacy, key, (identity, own_class), (gpus, wanted)
    )
    if run is None and frozen and entry is not None:  # this class's run, frozen
        lent = frozen.lend(entry, own_class, same=True)
        if lent is not None:
            return Found(key, code.digest, lent, frozen=True)
    return Found(key, code.digest, run, stale=stale)


def _rekeyed(
    cache: ExecutionCache, legacy: Legacy, key: str, where: tuple[str, str], needs: tuple[int, int]
) -> NotebookNode | None:
    """The run this host's Python cached under key format 1 (``where``: its environment and
    device class; ``needs``: the host's GPUs, the most a cell wants), stored again under
    ``key``: a new polybook runs nothing again."""
    old = legacy(own_dialect())
    kept = cache.get(old.on(*where).digest, *needs)
    if kept is None:
        return None
    run = copy_notebook(kept)  # the cache's own stays as read
    update_notebook_meta(run, key=key, key_format=KEY_FORMAT)
    cache.put(key, run)
    return run
