"""The records a build's jobs travel in: the devices a host offers (:class:`Inventory`), one
notebook to execute (:class:`Job`) and what came of it (:class:`JobResult`, :class:`Failure`).
The scheduler places them; an executor runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nbformat import NotebookNode

from polybook.diagnostics import Diagnostic
from polybook.execution.kernels.launch import KernelEnv


@dataclass(frozen=True)
class Inventory:
    """The devices of a host: ``gpus`` GPUs, each shared by at most ``share`` notebooks.

    For a cluster, ``gpus`` is the most one host has (what one notebook can get) and
    ``pool`` the GPUs of all hosts together (0: the same as ``gpus``).
    """

    gpus: int = 0
    share: int = 1
    pool: int = 0
    devices: tuple[str, ...] = ()  # this host's GPUs as CUDA names them (default: 0, 1, …)

    @property
    def slots(self) -> int:
        return self.pool or self.gpus

    def ids(self, gpus: tuple[int, ...]) -> tuple[str, ...]:
        """The ``CUDA_VISIBLE_DEVICES`` entries of the GPUs numbered ``gpus`` here."""
        return tuple(self.devices[g] if g < len(self.devices) else str(g) for g in gpus)


@dataclass(frozen=True)
class Job:
    """One notebook to execute."""

    path: str
    framework: str
    key: str
    notebook: NotebookNode
    env: KernelEnv
    expected: float = 0.0
    identity: str = ""  # of the framework environment it needs (the pins' hash)

    @property
    def name(self) -> str:
        return f"{self.path} [{self.framework}]"


@dataclass(frozen=True)
class Failure:
    """What a failed cell left: its source and the kernel's traceback (ANSI colours kept)."""

    source: str = ""
    traceback: str = ""

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "traceback": self.traceback}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Failure:
        return cls(str(data.get("source", "")), str(data.get("traceback", "")))


@dataclass
class JobResult:
    job: Job
    status: str  # ok | error | crashed | cancelled
    notebook: NotebookNode | None = None
    seconds: float = 0.0
    error: Diagnostic | None = None
    gpus: tuple[int, ...] = ()
    failure: Failure | None = None
    host_gpus: int | None = None  # GPUs of the host that ran it, where not this one
