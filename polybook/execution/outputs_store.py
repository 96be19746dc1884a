"""A committed outputs store read as frozen outputs: ``outputs/<framework>/<page>.json``.

Some books commit the outputs of their notebooks as one manifest per page and framework
(schema 1): ``{"schema": 1, "provenance": {"framework_version": …}, "cells": {ID:
{"code_fingerprint": "sha256:…", "outputs": [...]}}}``, text outputs inline and images as
files beside the manifest (``"asset": "<page>/<id>-<n>.png"``, often Git LFS pointers in a
clone without LFS). A cell's fingerprint is the SHA-256 of the normalized code of that cell
and of every code cell before it in the framework's notebook (each line right-stripped,
``#@save`` marks removed, each cell followed by a NUL byte): a code cell whose id and
fingerprint match shows the stored outputs, with their provenance; a stale one shows none
(one warning per page). What a manifest names is read only inside the book's folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.meta import RunInfo, cell_meta, update_notebook_meta
from polybook.nb import Notebooks, copy_notebook

logger = logging.getLogger("polybook")

STORE_DIR = "outputs"
SCHEMA = 1
SAVE_MARK = re.compile(r"\s*#@save\b")
FENCE_ID = re.compile(r"(?:^|[\s{])#([a-z][a-z0-9-]*)(?=\s|\}|$)")  # d2l-neu's cell ids
TAB_LINE = re.compile(r"^(%%tab|#@tab)\s+[\w,\s]+$")
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
LFS_NOTE = "Git LFS file not fetched: run git lfs pull"
IMAGES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg"}


def normalized(source: str) -> str:
    """A code cell's text as the store's fingerprints read it: ``#@save`` marks removed,
    each line right-stripped."""
    return "\n".join(SAVE_MARK.sub("", line).rstrip() for line in source.split("\n"))


def _blank_lead(page: list[str], line: int) -> int:
    """How many blank lines stand between a cell's tab line (``%%tab pytorch``) and its
    first line of code, ``line`` (1-based) of ``page``: the store's notebooks keep them."""
    count = 0
    while line - 2 - count >= 0 and not page[line - 2 - count].strip():
        count += 1
    above = line - 2 - count
    return count if count and above >= 0 and TAB_LINE.match(page[above]) else 0


def _store_id(page: list[str], line: int) -> str:
    """The ``#id`` on the fence of the code cell whose code starts at ``line`` of ``page``
    (the store's name of the cell, which a notebook cell id may not hold: longer than 64
    characters), or ""."""
    at = line - 2
    while at >= 0 and not page[at].startswith(("```", "~~~")):
        at -= 1
    found = FENCE_ID.search(page[at]) if at >= 0 else None
    return found.group(1) if found else ""


def fingerprints(nb: NotebookNode, page: list[str]) -> dict[str, tuple[str, str]]:
    """Each code cell's id -> its name in the store and the store's fingerprint of it
    (prefix-inclusive); ``page``: the lines of the page the notebook is made from."""
    running = hashlib.sha256()
    found: dict[str, tuple[str, str]] = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        line = cell_meta(cell).line
        text = "\n" * _blank_lead(page, line) + cell.source
        running.update(normalized(text).encode("utf-8") + b"\0")
        name = _store_id(page, line) or str(cell.get("id", ""))
        found[str(cell.get("id", ""))] = (name, "sha256:" + running.copy().hexdigest())
    return found


@dataclass
class StoreUse:
    """What the store gave one notebook: cells shown, stale, and images not fetched."""

    matched: int = 0
    stale: list[str] = field(default_factory=list)
    lfs: int = 0
    lfs_at: Location | None = None  # the manifest's first "asset" line, when lfs
    missing: list[tuple[str, int]] = field(default_factory=list)  # (asset, manifest line)

    @property
    def covers(self) -> bool:
        """Whether every cell the manifest names matched (nothing stale)."""
        return self.matched > 0 and not self.stale


def cells(count: int) -> str:
    return f"{count} cell" + ("" if count == 1 else "s")


def _line_of(text: str, needle: str) -> int:
    """The 1-based line of ``text`` that first holds ``needle`` (0: none)."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 0


class OutputsStore:
    """The ``outputs/`` folder of a book; ``root``: the book's folder, outside which nothing
    it names is read. ``split``: the notebooks as split from the pages, before the library
    stage rewrote their code (aliases), whose code the fingerprints are of (None: the
    notebooks given are)."""

    def __init__(self, root: Path, split: Notebooks | None = None) -> None:
        self.root = root.resolve()
        self.folder = self.root / STORE_DIR
        self.split = {(p, fw): nb for fw, nbs in (split or {}).items() for p, nb in nbs}
        self.unfetched: list[tuple[Location, int]] = []  # shown notes: where, how many

    def keep(self, use: StoreUse | None) -> None:
        """Note the images not fetched of a notebook whose stored outputs are shown."""
        if use is not None and use.lfs_at is not None:
            self.unfetched.append((use.lfs_at, use.lfs))

    def report_unfetched(self, reporter: Reporter) -> None:
        """One warning for the book, at the first manifest, for every image shown as a
        note because its file is a Git LFS pointer (a clone without LFS has hundreds)."""
        if not self.unfetched:
            return
        images = sum(count for _, count in self.unfetched)
        where = self.unfetched[0][0]
        more = len(self.unfetched) - 1
        where_all = (
            f"in this manifest and {more} other" + ("s" if more > 1 else "") if more else "here"
        )
        message = f"{LFS_NOTE} ({images} images are pointer files: {where_all})"
        reporter.warn(where, message, "store.lfs")
        self.unfetched = []

    def manifest(self, page: str, framework: str) -> Path:
        return self.folder / framework / (page.removesuffix(".md") + ".json")

    def _read(self, path: Path) -> tuple[dict[str, Any], str]:
        """The manifest and its text; a located error when it does not read as schema 1."""
        where = Location(str(path.relative_to(self.root)))
        if not path.resolve().is_relative_to(self.root):
            raise PolybookError(where, "a link to a file outside the book: not read", "store")
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            at = Location(where.path, exc.lineno)
            raise PolybookError(at, f"not JSON: {exc.msg}", "store") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise PolybookError(where, f"not an outputs manifest of schema {SCHEMA}", "store")
        if not isinstance(data.get("cells"), dict):
            raise PolybookError(where, 'no "cells" object', "store")
        return data, text

    def _asset(self, manifest: Path, name: object, line: int) -> Path:
        """The file an ``asset`` names (relative to the manifest's folder), refused unless
        it is inside the book's folder."""
        where = Location(str(manifest.relative_to(self.root)), line)
        if not isinstance(name, str) or not name:
            raise PolybookError(where, "an asset without a file name", "store")
        relative = Path(name)
        if relative.is_absolute() or ".." in relative.parts or "\\" in name:
            raise PolybookError(where, f"asset {name!r} names a file outside the book", "store")
        path = (manifest.parent / relative).resolve()
        if not path.is_relative_to(self.root):
            raise PolybookError(where, f"asset {name!r} names a file outside the book", "store")
        return path

    def _output(
        self, manifest: Path, text: str, entry: dict[str, Any], use: StoreUse
    ) -> NotebookNode | None:
        kind = str(entry.get("type", ""))
        if "asset" in entry:
            line = _line_of(text, json.dumps(entry["asset"]))
            path = self._asset(manifest, entry["asset"], line)
            mime = IMAGES.get(path.suffix.lower())
            if mime is None or not path.is_file():
                use.missing.append((str(entry["asset"]), line))
                return None
            raw = path.read_bytes()
            if raw.startswith(LFS_POINTER):
                use.lfs += 1
                note = f"[{LFS_NOTE}: {path.relative_to(self.root)}]"
                return _node({"output_type": "display_data", "data": {"text/plain": note}})
            value = raw.decode() if mime == "image/svg+xml" else base64.b64encode(raw).decode()
            return _node({"output_type": "display_data", "data": {mime: value}})
        if kind == "stream":
            name = str(entry.get("name", "stdout"))
            return _node({"output_type": "stream", "name": name, "text": str(entry["text"])})
        if "text" in entry and kind in ("execute_result", "display_data"):
            out = {"output_type": kind, "data": {"text/plain": str(entry["text"])}}
            return _node(out | ({"execution_count": None} if kind == "execute_result" else {}))
        return None

    def fill(self, place: tuple[str, str], nb: NotebookNode, reporter: Reporter) -> StoreUse | None:
        """Give ``nb`` (``place``: page, framework) the stored outputs of each code cell that
        matches; None when the store has no manifest for it. Stale cells are warned of once
        for the page; images not fetched are noted in the use, for the caller to report once
        for the book (:meth:`keep`); a manifest that does not read is an error."""
        page, framework = place
        path = self.manifest(page, framework)
        if not path.is_file():
            return None
        try:
            data, text = self._read(path)
            use = StoreUse()
            stored = data["cells"]
            shown: dict[str, list[NotebookNode]] = {}
            lines = (self.root / page).read_text(encoding="utf-8", errors="replace")
            code = self.split.get(place, nb)
            for cid, (name, fingerprint) in fingerprints(code, lines.split("\n")).items():
                entry = stored.get(name)
                if not isinstance(entry, dict):
                    continue
                if entry.get("code_fingerprint") != fingerprint:
                    use.stale.append(cid)
                    continue
                use.matched += 1
                outs = [self._output(path, text, o, use) for o in entry.get("outputs", [])]
                shown[cid] = [o for o in outs if o is not None]
        except (PolybookError, OSError, KeyError, TypeError, AttributeError, ValueError) as exc:
            if isinstance(exc, PolybookError):
                reporter.error(exc)
            else:
                at = Location(str(path.relative_to(self.root)))
                reporter.error(PolybookError(at, f"unreadable: {exc!r}", "store"))
            return None
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.get("id") in shown:
                cell.outputs = shown[cell.id]
        provenance = data.get("provenance", {})
        version = (
            str(provenance.get("framework_version", "")) if isinstance(provenance, dict) else ""
        )
        stored_as = str(path.relative_to(self.root))
        update_notebook_meta(nb, run=RunInfo(framework_version=version, store=stored_as))
        self._report(place, nb, (stored_as, text), use, reporter)
        return use

    def _report(
        self,
        place: tuple[str, str],
        nb: NotebookNode,
        manifest: tuple[str, str],
        use: StoreUse,
        reporter: Reporter,
    ) -> None:
        page, framework = place
        stored_as, text = manifest
        if use.stale:
            first = next(c for c in nb.cells if c.get("id") == use.stale[0])
            where = Location(page, cell_meta(first).line, framework)
            reporter.warn(
                where,
                f"the outputs {stored_as} holds for {cells(len(use.stale))} are stale (their"
                " code, or code before them, changed since they were stored): not shown",
                "store.stale",
            )
        for asset, line in use.missing:
            reporter.warn(
                Location(stored_as, line), f"asset {asset!r} is missing or not an image", "store"
            )
        if use.lfs:  # warned of once for the book (report_unfetched)
            use.lfs_at = Location(stored_as, _line_of(text, '"asset"'))


def _node(output: dict[str, Any]) -> NotebookNode:
    if output["output_type"] != "stream":
        output.setdefault("metadata", {})
    return nbformat.from_dict(output)  # type: ignore[no-any-return,no-untyped-call]


def fill_all(
    store: OutputsStore, notebooks: dict[tuple[str, str], NotebookNode], reporter: Reporter
) -> int:
    """Nothing runs (``eval_notebook = false``): give each notebook what the book's store
    holds for it, cell by cell (in ``notebooks``, a filled copy in its place: the notebook
    given is the stages' own, read again by the next build); returns how many notebooks
    the store gave outputs."""
    if not store.folder.is_dir():
        return 0
    used = []
    for place, nb in list(notebooks.items()):
        if not store.manifest(*place).is_file():
            continue
        filled = copy_notebook(nb)
        use = store.fill(place, filled, reporter)
        if use is not None:
            notebooks[place] = filled
        used.append(use)
    for use in used:
        store.keep(use)
    store.report_unfetched(reporter)
    return sum(1 for use in used if use is not None and use.matched)


def covered_run(
    store: OutputsStore, place: tuple[str, str], nb: NotebookNode, reporter: Reporter
) -> NotebookNode | None:
    """The notebook with the store's outputs when they cover it (every cell the manifest
    names matches), as a run from the cache is used; else None (it runs, so stale cells
    are not warned of). A manifest that does not read is an error all the same."""
    if not store.manifest(*place).is_file():
        return None
    filled = copy_notebook(nb)
    scratch = Reporter(quiet=True)
    use = store.fill(place, filled, scratch)
    reporter.forward(scratch.errors)
    if use is None or not use.covers:
        return None
    reporter.forward(scratch.warnings)
    store.keep(use)  # images not fetched: the caller reports them once
    logger.info("%s [%s]: outputs from %s", place[0], place[1], store.manifest(*place).name)
    return filled
