"""The warm zygotes of a build (:mod:`polybook.execution.kernels.zygote_server`): one per
framework environment, started on the first job that needs it and shared by the executor's
workers; a job's :class:`~polybook.execution.kernels.launch.KernelEnv` names its zygote's
socket, and the worker asks it for the job's kernel
(:mod:`polybook.execution.kernels.forking_provisioner`).

A zygote that cannot start (the framework's Python is broken, the fork is refused) is
reported once, and the environment's kernels start as usual.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from polybook.execution.kernels.zygote_server import READY
from polybook.paths import IMPORT_ROOT

logger = logging.getLogger("polybook")
START_TIMEOUT = 300.0  # seconds a zygote may take to import its framework
# What a kernel gets from its launch, not from the zygote's start: not part of a zygote's key.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
PER_KERNEL = ("PYTHONPATH", "CUDA_VISIBLE_DEVICES", "JPY_PARENT_PID", "JPY_SESSION_NAME")
BOOT = (
    "import sys; sys.path.append({source!r}); "
    "from polybook.execution.kernels.zygote_server import main; main({source!r})"
)


class ZygoteError(RuntimeError):
    """A zygote did not start or stopped answering."""


@dataclass(frozen=True)
class ZygoteSpec:
    """What a zygote is made of: the framework's Python, the environment its imports see,
    the modules it preloads."""

    python: str
    environ: tuple[tuple[str, str], ...]
    modules: tuple[str, ...]

    @classmethod
    def of(
        cls, python: str, environ: Mapping[str, str], module: str, preload: Sequence[str] = ()
    ) -> ZygoteSpec:
        """The zygote of ``python``'s kernels: it imports the framework ``module`` and the
        modules ``preload`` names (the library's own imports), as its kernels would."""
        kept = {k: v for k, v in environ.items() if k not in PER_KERNEL}
        # What ipykernel sets in each kernel before matplotlib is imported: set here, so
        # that a matplotlib the zygote imports draws inline in its kernels.
        kept.setdefault("MPLBACKEND", INLINE_BACKEND)
        modules = tuple(dict.fromkeys(m for m in (module, *preload) if m))
        return cls(python, tuple(sorted(kept.items())), modules)


class ZygoteProcess:
    """One running zygote process, listening on :attr:`path`."""

    def __init__(self, spec: ZygoteSpec, folder: Path, log: IO[Any] | int) -> None:
        self.spec = spec
        self.path = str(folder / f"zygote-{os.getpid()}-{id(self):x}.sock")
        command = [spec.python, "-c", BOOT.format(source=str(IMPORT_ROOT)), self.path]
        self.process = subprocess.Popen(
            [*command, *spec.modules],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            env=dict(spec.environ),
        )

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until the zygote has preloaded and listens; ZygoteError if it does not."""
        stdout = self.process.stdout
        line = b""
        if stdout is not None and select.select([stdout], [], [], timeout)[0]:
            line = stdout.readline()  # the zygote prints one line when it is ready
        if READY not in line.decode(errors="replace"):
            self.close()
            raise ZygoteError(f"the zygote of {self.spec.python} did not start")

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        Path(self.path).unlink(missing_ok=True)


class ZygotePool:
    """An executor's zygotes, one per :class:`ZygoteSpec`, started on first use and shared
    by its workers (safe to use from the executor's threads)."""

    def __init__(self, log: IO[Any] | int = subprocess.DEVNULL) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="polybook-zygotes-"))
        self.log = log  # where the zygotes' own messages go
        self.zygotes: dict[ZygoteSpec, ZygoteProcess | None] = {}
        self.starting: dict[
            ZygoteSpec, ZygoteProcess
        ] = {}  # started (:meth:`start`), not waited for
        self.locks: dict[ZygoteSpec, threading.Lock] = {}
        self.lock = threading.Lock()
        self.closed = False

    def _lock_of(self, spec: ZygoteSpec) -> threading.Lock:
        """The lock held while the zygote of ``spec`` starts or ends."""
        with self.lock:
            return self.locks.setdefault(spec, threading.Lock())

    def start(self, spec: ZygoteSpec) -> None:
        """Start the zygote of ``spec`` if none runs, without waiting for it: the first
        :meth:`socket_for` does (its process dies with the thread that calls this)."""
        starting = self._lock_of(spec)
        with starting:
            if spec not in self.zygotes and spec not in self.starting and not self.closed:
                self.starting[spec] = ZygoteProcess(spec, self.folder, self.log)

    def socket_for(self, spec: ZygoteSpec) -> str:
        """The socket of the running zygote of ``spec``; "" where none can run (kernels
        then start as usual)."""
        starting = self._lock_of(spec)
        with starting:
            zygote = self.zygotes.get(spec)
            if zygote is not None and zygote.process.poll() is None:
                return zygote.path
            if spec in self.zygotes and zygote is None:
                return ""  # it failed once: not again in this build
            if zygote is not None:  # it died (killed): a new one takes its place
                zygote.close()
            zygote = self.starting.pop(spec, None) or ZygoteProcess(spec, self.folder, self.log)
            try:
                zygote.wait_ready()
            except (ZygoteError, OSError) as exc:
                if self.closed:  # the build ended while it started: nothing needs it
                    return ""
                logger.warning("kernels of %s start afresh: %s", spec.python, exc)
                self.zygotes[spec] = None
                return ""
            if self.closed:
                zygote.close()
                return ""
            self.zygotes[spec] = zygote
            return zygote.path

    def release(self, spec: ZygoteSpec) -> None:
        """End the zygote of ``spec`` (its kernels end with it); a later job starts another."""
        starting = self._lock_of(spec)
        with starting:
            zygote = self.zygotes.pop(spec, None) or self.starting.pop(spec, None)
        if zygote is not None:
            zygote.close()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            zygotes = [z for z in self.zygotes.values() if z is not None]
            zygotes += self.starting.values()
            self.zygotes.clear()
            self.starting.clear()
        for zygote in zygotes:
            zygote.close()
        with contextlib.suppress(OSError):
            for leftover in self.folder.iterdir():
                leftover.unlink()
            self.folder.rmdir()
