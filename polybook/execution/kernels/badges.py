"""Cells a host cannot run for want of devices: tagged to be skipped when their author
declared more GPUs than the host has (:func:`mark_unrunnable`), badged when they fail
for want of one (:func:`badge_unavailable`). Either way the notebook goes on."""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode

from polybook.execution.kernels.device_errors import MissingDevices, device_unavailable
from polybook.execution.kernels.launch import KernelEnv
from polybook.meta import cell_meta, update_cell_meta

SKIP_TAG = "skip-execution"


def badge_text(needed: int, host: int) -> str:
    plural = "GPU" if needed == 1 else "GPUs"
    return f"needs {needed} {plural}; built on a host with {host}"


def mark_unrunnable(nb: NotebookNode, host_gpus: int) -> int:
    """Tag the cells whose author declared (``#@requires gpus=N``) more GPUs than the host
    has; returns how many. Every other cell runs: one that fails for want of a device is
    badged then (:func:`badge_unavailable`)."""
    count = 0
    for cell in nb.cells:
        meta = cell_meta(cell)
        declared = meta.requires is not None and meta.requires.declared
        if cell.cell_type == "code" and declared and meta.gpus > host_gpus:
            cell.metadata.setdefault("tags", [])
            if SKIP_TAG not in cell.metadata.tags:
                cell.metadata.tags.append(SKIP_TAG)
            update_cell_meta(cell, skipped=badge_text(meta.gpus, host_gpus))
            cell.outputs = []
            count += 1
    return count


def badge_unavailable(
    cell: NotebookNode, reply: dict[str, Any], env: KernelEnv, missing: MissingDevices
) -> bool:
    """Badge ``cell`` when its error (``reply``, an ``execute_reply``) says the host lacks
    its device, or that a name a badged cell would have bound is undefined; its outputs
    cleared. False for any other outcome."""
    content = reply.get("content", {})
    if content.get("status") != "error":
        return False
    needed = cell_meta(cell).gpus
    beyond = needed > env.host_gpus
    ename, evalue = str(content.get("ename", "")), str(content.get("evalue", ""))
    if device_unavailable(ename, evalue, env.device_errors, beyond):
        badge = badge_text(max(needed, env.host_gpus + 1), env.host_gpus)
    else:
        badge = missing.badge_of(ename, evalue)
    if not badge:
        return False
    missing.badged(str(cell.source), badge)
    update_cell_meta(cell, skipped=badge)
    cell.outputs = []
    return True
