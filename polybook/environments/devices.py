"""The GPUs this process may use, and the device class of the outputs a host makes.

The allotment is what the process was given, not what the machine has: an inherited
``CUDA_VISIBLE_DEVICES`` (indices, ``GPU-``/``MIG-`` UUIDs; empty: none), else Slurm's
``SLURM_STEP_GPUS`` / ``SLURM_JOB_GPUS``, else every GPU ``nvidia-smi -L`` lists. Kernels
get subsets of exactly those ids, spelled as given.

A device class orders hosts by what their outputs show: ``cpu`` < ``cuda``. A notebook whose
outputs depend on the device (:func:`device_dependent`) is cached per class; outputs of a
bigger class may be shown on a smaller one, with their provenance, never the other way round.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import shutil
import subprocess
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polybook.memo import memoised

if TYPE_CHECKING:  # nbformat is slow to import; a build that finds nothing changed needs none
    from nbformat import NotebookNode

logger = logging.getLogger("polybook")

CPU, CUDA = "cpu", "cuda"
CLASSES = (CPU, CUDA)  # smaller to bigger
SMI_GPU = re.compile(r"^GPU (\d+):.*?\(UUID: (GPU-[^)\s]+)\)")
SMI_MIG = re.compile(r"^\s+MIG .*\(UUID: (MIG-[^)\s]+)\)")
# Words that name a device (case-insensitive, outside comments): a cell using one shows
# outputs that may differ between a CPU and a GPU host.
DEVICE_WORDS = re.compile(
    r"\b(cuda|gpus?|num_gpus|try_gpu|try_all_gpus|devices?|device_put|as_in_ctx|tpu)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Listed:
    """The GPUs the driver lists: UUIDs by index, and MIG instances' UUIDs."""

    gpus: tuple[str, ...] = ()
    migs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Allotment:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` spells them, and where
    that came from."""

    ids: tuple[str, ...] = ()
    source: str = "nvidia-smi"

    @property
    def count(self) -> int:
        return len(self.ids)


@functools.cache
def _listed(smi: str) -> Listed:
    """What ``nvidia-smi -L`` lists (asked once per executable)."""
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return Listed()
    gpus: dict[int, str] = {}
    migs: list[str] = []
    for line in done.stdout.splitlines():
        gpu, mig = SMI_GPU.match(line), SMI_MIG.match(line)
        if gpu:
            gpus[int(gpu.group(1))] = gpu.group(2)
        elif line.startswith("GPU "):  # a driver that prints no UUID
            gpus[len(gpus)] = ""
        elif mig:
            migs.append(mig.group(1))
    return Listed(tuple(gpus[i] for i in sorted(gpus)), tuple(migs))


def listed(environ: Mapping[str, str] | None = None) -> Listed:
    """The GPUs of this machine, as the ``nvidia-smi`` on ``PATH`` lists them."""
    env = os.environ if environ is None else environ
    smi = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    return _listed(smi) if smi else Listed()


def _valid(entry: str, found: Listed) -> bool:
    if entry.isdigit():
        return int(entry) < len(found.gpus)
    if entry.startswith("GPU-"):
        return any(u and u.startswith(entry) for u in found.gpus)
    if entry.startswith("MIG-"):
        return any(u.startswith(entry) for u in found.migs)
    return False


def _expand(text: str) -> list[str]:
    """``0,2-3`` -> ``0 2 3`` (Slurm's lists may hold ranges)."""
    entries: list[str] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        first, dash, last = part.partition("-")
        if dash and first.isdigit() and last.isdigit():
            entries += [str(i) for i in range(int(first), int(last) + 1)]
        else:
            entries.append(part)
    return entries


@functools.cache
def _ignored(variable: str, value: str, entry: str) -> None:
    logger.warning(
        "%s=%s: %r is not a GPU nvidia-smi lists; it and what follows are ignored, as CUDA does",
        variable,
        value,
        entry,
    )


def allotment(environ: Mapping[str, str] | None = None) -> Allotment:
    """The GPUs this process may use (see the module's documentation)."""
    env = os.environ if environ is None else environ
    found = listed(env)
    for variable in ("CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS"):
        if variable not in env:
            continue
        ids: list[str] = []
        for entry in _expand(env[variable]):
            if not _valid(entry, found):
                if found.gpus and not entry.startswith("-"):  # -1: hidden on purpose
                    _ignored(variable, env[variable], entry)
                break  # CUDA stops at the first device it cannot use
            if entry not in ids:
                ids.append(entry)
        return Allotment(tuple(ids), variable)
    return Allotment(tuple(str(i) for i in range(len(found.gpus))))


def host_gpus() -> int:
    """GPUs this process may use: its allotment (``CUDA_VISIBLE_DEVICES``, Slurm's), else
    what ``nvidia-smi`` lists (0 without a driver)."""
    return allotment().count


def resolve_device(configured: str) -> str:
    """``cpu`` or ``cuda``: the configured choice, or detection when ``auto``."""
    if configured in {CPU, CUDA}:
        return configured
    return CUDA if host_gpus() > 0 else CPU


def host_class(gpus: int, cuda_build: bool = True) -> str:
    """The device class of a host with ``gpus`` allotted GPUs; a framework installed from the
    CPU requirement set (``device = cpu``) makes CPU outputs whatever the host has."""
    return CUDA if gpus > 0 and cuda_build else CPU


def rank(device_class: str) -> int:
    """The place of a class in :data:`CLASSES` (an unknown or empty one is the smallest)."""
    return CLASSES.index(device_class) if device_class in CLASSES else 0


def bigger(device_class: str) -> tuple[str, ...]:
    """The classes above ``device_class``, biggest first: whose outputs it may borrow."""
    return tuple(reversed(CLASSES[rank(device_class) + 1 :]))


def _code(source: str) -> str:
    """``source`` without its comments (the text itself where it does not tokenize)."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        return " ".join(t.string for t in tokens if t.type != tokenize.COMMENT)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source


@memoised(65536)
def names_device(source: str) -> bool:
    """Whether a cell's code names a device (see :data:`DEVICE_WORDS`)."""
    # Most cells name no device at all: tokenize only those whose text does.
    return bool(DEVICE_WORDS.search(source)) and bool(DEVICE_WORDS.search(_code(source)))


def device_dependent_cell(cell: NotebookNode) -> bool:
    """A code cell that needs GPUs (declared or inferred) or names a device."""
    from polybook.meta import cell_meta

    return cell.cell_type == "code" and (cell_meta(cell).gpus > 0 or names_device(cell.source))


def device_dependent(nb: NotebookNode) -> bool:
    """Whether a notebook's outputs may depend on the host's device: one of its code cells
    needs GPUs or names a device."""
    return any(device_dependent_cell(c) for c in nb.cells)
