"""Render stage, part one: a page's blocks and executed notebooks -> MyST + cell data."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from polybook.diagnostics import Reporter
from polybook.environments import devices
from polybook.meta import RunInfo, cell_meta, notebook_meta
from polybook.nb import strip_ansi
from polybook.render.footnotes import footnote_labels
from polybook.render.myst import Lines, prose_to_myst
from polybook.render.names import OUTPUT_DIR
from polybook.render.rst_files import PageFiles
from polybook.source.model import Block, CodeCell, Document, Prose, TabProse, Toc

REFERENCES = "references"  # the docname of the bibliography's page
IMAGE_TYPES = {"image/png": "png", "image/svg+xml": "svg", "image/jpeg": "jpg"}


@dataclass
class Page:
    """A rendered page: MyST text with its line origins, cell data and output files."""

    docname: str
    lines: Lines
    cells: dict[str, Any] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines.text) + "\n"


def _output(out: NotebookNode, page: Page) -> dict[str, str] | None:
    """One notebook output as renderer data; images become files of the site."""
    if out.output_type == "stream":
        return {"type": "stream", "name": out.name, "text": strip_ansi(out.text)}
    if out.output_type == "error":
        return {"type": "error", "text": strip_ansi("\n".join(out.traceback))}
    data = out.get("data", {})
    for mime, ext in IMAGE_TYPES.items():
        if mime in data:
            value = data[mime]
            raw = value.encode() if mime == "image/svg+xml" else base64.b64decode(value)
            name = f"{OUTPUT_DIR}/{hashlib.sha256(raw).hexdigest()[:20]}.{ext}"
            page.files[name] = raw
            return {"type": "image", "uri": "/" + name, **_shown_size(out, mime)}
    if "text/html" in data:
        return {"type": "html", "text": data["text/html"]}
    if "text/plain" in data:
        return {"type": "text", "text": strip_ansi(data["text/plain"])}
    return None


def _shown_size(out: NotebookNode, mime: str) -> dict[str, str]:
    """The size (CSS pixels) an image output asks to be shown at, as Jupyter shows it: a
    PNG at twice the pixels ([html] figure_format = png) names its own, half its pixels."""
    size = out.get("metadata", {}).get(mime, {})
    wanted = {key: size.get(key) for key in ("width", "height")} if isinstance(size, dict) else {}
    return {
        key: str(int(value))
        for key, value in wanted.items()
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    }


def _merge_streams(outputs: list[dict[str, str]]) -> list[dict[str, str]]:
    merged: list[dict[str, str]] = []
    for out in outputs:
        last = merged[-1] if merged else None
        if last and out["type"] == last["type"] == "stream" and out["name"] == last["name"]:
            last["text"] += out["text"]
        else:
            merged.append(dict(out))
    return merged


def provenance(cell: NotebookNode, run: RunInfo | None, host_gpus: int) -> str:
    """Where the outputs of a cell come from when this host could not have made them (it
    lacks the GPUs the cell needs, or the outputs depend on a bigger device class), or ""
    (also for a cell without outputs: nothing to vouch for)."""
    meta = cell_meta(cell)
    if meta.skipped or run is None or not cell.get("outputs"):
        return ""
    if run.store:  # read from a committed outputs store (polybook.execution.outputs_store)
        made = f" ({run.framework_version})" if run.framework_version else ""
        return f"output stored in {run.store}{made}" if cell.get("outputs") else ""
    bigger = devices.rank(run.device_class) > devices.rank(devices.host_class(host_gpus))
    smaller = meta.gpus <= host_gpus or run.host_gpus <= host_gpus  # this host could run it
    if smaller and not (bigger and devices.device_dependent_cell(cell)):
        return ""
    if run.gpu:  # (NVIDIA H200, driver 580.159.04, CUDA 13.0; torch 2.11.0; 2026-11-27)
        made = "; ".join(x for x in (run.gpu, run.framework_version, run.date[:10]) if x)
    else:
        made = ", ".join(x for x in (run.framework_version, run.date[:10]) if x)
    gpus = f"{run.host_gpus} GPU" + ("" if run.host_gpus == 1 else "s")
    return f"output of a build on a host with {gpus} ({made})"


def _cell_data(
    cell: NotebookNode, page: Page, run: RunInfo | None, host_gpus: int
) -> dict[str, Any]:
    tags = set(cell.metadata.get("tags", []))
    meta = cell_meta(cell)
    outputs = [o for o in (_output(out, page) for out in cell.get("outputs", [])) if o]
    return {
        "source": "" if "remove-input" in tags else cell.source,
        "outputs": [] if "remove-output" in tags else _merge_streams(outputs),
        "badge": meta.skipped,
        "provenance": provenance(cell, run, host_gpus),
        "line": meta.line,
    }


def _code_group(
    cells: Sequence[tuple[int, CodeCell]],
    doc: Document,
    notebooks: Mapping[str, NotebookNode],
    tabs: tuple[str, ...],
    page: Page,
    host_gpus: int,
) -> dict[str, Any]:
    """Panels (framework -> cells) of a run of code cells; ``single`` when all agree."""
    by_id = {fw: {c.id: c for c in nb.cells} for fw, nb in notebooks.items()}
    runs = {fw: notebook_meta(nb).run for fw, nb in notebooks.items()}
    panels: dict[str, list[dict[str, Any]]] = {}
    for index, block in cells:
        for fw in tabs:
            cell = by_id.get(fw, {}).get(doc.cell_id(index))
            if fw in block.frameworks and cell is not None:
                tags = set(cell.metadata.get("tags", []))
                if "remove-cell" not in tags:
                    data = _cell_data(cell, page, runs[fw], host_gpus)
                    if block.name:  # its id, even one too long for a notebook's: an anchor
                        data["anchor"] = block.name
                    panels.setdefault(fw, []).append(data)
    shown = list(panels.values())
    same = len(shown) == len(tabs) and all(
        [{k: v for k, v in c.items() if k != "line"} for c in p]
        == [{k: v for k, v in c.items() if k != "line"} for c in shown[0]]
        for p in shown
    )
    if same and shown:
        return {"kind": "single", "cells": shown[0]}
    return {"kind": "tabs", "panels": [[fw, cells] for fw, cells in panels.items()]}


def _groups(blocks: tuple[Block, ...], tabs: tuple[str, ...]) -> list[list[tuple[int, Block]]]:
    """Consecutive blocks that show as one unit: tab prose runs, code runs, the rest alone."""
    groups: list[list[tuple[int, Block]]] = []
    for index, block in enumerate(blocks):
        last = groups[-1][-1][1] if groups else None
        is_all = isinstance(block, CodeCell) and block.frameworks == tabs
        joins = (isinstance(block, TabProse) and isinstance(last, TabProse)) or (
            isinstance(block, CodeCell)
            and isinstance(last, CodeCell)
            and not is_all
            and last.frameworks != tabs
        )
        if joins:
            groups[-1].append((index, block))
        else:
            groups.append([(index, block)])
    return groups


def _toc_lines(toc: Toc, out: Lines) -> None:
    out.add("```{toctree}", toc.line)
    for key, value in toc.options:
        out.add(f":{key}: {value}".rstrip(), toc.line)
    out.add("", toc.line)
    for entry, line in zip(toc.entries, toc.entry_lines, strict=True):
        out.add(entry.removesuffix(".md"), line)
    out.add("```", toc.line)


def render_page(
    doc: Document,
    notebooks: Mapping[str, NotebookNode],
    tabs: tuple[str, ...],
    reporter: Reporter,
    host_gpus: int = 0,
    root: Path | None = None,
) -> Page:
    """The MyST page of ``doc``; ``notebooks`` are its executed (or split) notebooks.
    ``root``: the book's folder, where its ``raw`` directives' files are read."""
    page = Page(doc.docname, Lines())
    out = page.lines
    files = PageFiles(root, doc.path) if root is not None else None
    notes = footnote_labels(b.text for b in doc.blocks if isinstance(b, (Prose, TabProse)))
    for group in _groups(doc.blocks, tabs):
        index, block = group[0]
        out.add("", block.line)
        if isinstance(block, Prose):
            converted = prose_to_myst(
                block.text, block.line, doc.path, reporter, files, notes, doc.unnumbered
            )
            out.extend(converted)
        elif isinstance(block, Toc):
            _toc_lines(block, out)
        elif isinstance(block, TabProse):
            _tab_prose(group, doc.path, tabs, reporter, out, (files, notes))
        elif isinstance(block, CodeCell):
            cells = [(i, b) for i, b in group if isinstance(b, CodeCell)]
            data = _code_group(cells, doc, notebooks, tabs, page, host_gpus)
            if not data.get("panels", data.get("cells")):
                continue  # every cell of the group is hidden
            key = f"g{index}"
            page.cells[key] = data
            digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]
            out.add(f"```{{pb-cells}} {key} {digest}", block.line)
            out.add("```", block.line)
    if files is not None:
        page.files.update(files.found)
    return page


def _tab_prose(
    group: list[tuple[int, Block]],
    path: str,
    tabs: tuple[str, ...],
    reporter: Reporter,
    out: Lines,
    read: tuple[PageFiles | None, Collection[str]],
) -> None:
    """Tab prose as a tabset; ``read``: the page's raw files and its footnotes' labels."""
    files, notes = read
    by_tab: dict[str, Lines] = {}
    for _, block in group:
        if isinstance(block, TabProse) and block.text.strip():  # not all for slides alone
            for fw in block.frameworks:
                converted = prose_to_myst(block.text, block.line, path, reporter, files, notes)
                by_tab.setdefault(fw, Lines()).extend(converted)
    if not by_tab:
        return
    line = group[0][1].line
    out.add("::::::{pb-tabset} prose", line)
    for fw in tabs:
        if fw in by_tab:
            out.add(f":::::{{pb-tab}} {fw}", line)
            out.extend(by_tab[fw])
            out.add(":::::", line)
    out.add("::::::", line)


def references_page() -> Page:
    """A page of the book's bibliography (the entries its pages cite)."""
    page = Page(REFERENCES, Lines())
    page.lines.add("# References\n\n```{bibliography}\n```", 1)
    return page


def with_toctree(root: Page, docnames: Sequence[str], hidden: bool = True) -> Page:
    """The root page with a toctree of the generated pages: hidden, only the site's
    sidebar shows it; not hidden, the page shows it too, and the epub's table of contents
    lists them (it leaves hidden toctrees out)."""
    if not docnames:
        return root
    lines = Lines(list(root.lines.text), list(root.lines.origin))
    last = lines.origin[-1] if lines.origin else 1
    options = ":hidden:\n" if hidden else ""
    lines.add(f"\n```{{toctree}}\n{options}:caption: Reference\n", last)
    lines.add("\n".join([*docnames, "```"]), last)
    return replace(root, lines=lines)
