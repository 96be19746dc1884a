"""The watchdog of a running notebook: a cell may run as long as it shows signs of life.

A cell's limit (``[build] cell_timeout``, or ``#@timeout N`` in the cell) counts from its
start and from each message the kernel sends for it (an output, a progress line, a display
update): a training cell that reports progress runs on, a cell silent past its limit is
stopped: interrupted first, so that its traceback names the line it was on, then killed if
it does not end. A kernel whose process is stopped (SIGSTOP, a debugger) or that stops
answering its heartbeat is killed sooner, whatever the limit. The run then ends with a
:class:`~polybook.execution.kernels.cell_errors.CellError` named ``CellTimeoutError`` that
says which of these happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

POLL = 0.25  # seconds between looks
STOPPED_GRACE = 2.0  # seconds a kernel's process may stay stopped
SILENT_HEART = 30.0  # seconds a kernel may miss its heartbeats
INTERRUPT_GRACE = 3.0  # seconds an interrupted cell has to end before its kernel is killed


def process_state(pid: int) -> str:
    """The state letter of a process (``R``, ``S``, ``T`` stopped, ``Z`` zombie), or ""."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rpartition(")")[2].split()[0] if ")" in stat else ""


class Watchdog:
    """Watches the kernel of a :class:`nbclient.NotebookClient` while its cells run."""

    def __init__(self, client: Any, limit: Callable[[Any], int], origin: Callable[[Any], str]):
        self.client = client
        self.limit, self.origin = limit, origin
        self.cell: Any = None
        self.last = 0.0
        self.unanswered: float | None = None  # since when the heartbeat fails
        self.stopped: float | None = None  # since when the process is stopped
        self.reason = ""  # why it stopped the kernel; "" while it has not

    def started(self, cell: Any) -> None:
        self.cell, self.last = cell, time.monotonic()

    def heard(self) -> None:
        self.last = time.monotonic()

    def finished(self) -> None:
        self.cell = None

    def _why(self, now: float) -> str:
        cell = self.cell
        limit = self.limit(cell)
        if now - self.last > limit:
            return f"the cell timed out: nothing from it for {limit} s (limit {self.origin(cell)})"
        pid = getattr(getattr(self.client.km, "provisioner", None), "pid", None)
        state = process_state(int(pid)) if pid else ""
        self.stopped = (self.stopped or now) if state == "T" else None
        if self.stopped is not None and now - self.stopped > STOPPED_GRACE:
            return "the kernel stopped answering: its process is stopped (SIGSTOP)"
        kc = self.client.kc
        beating = kc is None or kc.hb_channel is None or kc.hb_channel.is_beating()
        self.unanswered = None if beating else (self.unanswered or now)
        if self.unanswered is not None and now - self.unanswered > SILENT_HEART:
            return f"the kernel stopped answering: no heartbeat for {SILENT_HEART:.0f} s"
        return ""

    async def watch(self) -> None:
        """Look every :data:`POLL` seconds; stop the cell that must stop."""
        interrupted = 0.0
        while True:
            await asyncio.sleep(POLL)
            if self.cell is None or self.client.km is None:
                continue
            now = time.monotonic()
            if interrupted and now - interrupted > INTERRUPT_GRACE:
                await self._kill()
                return
            if interrupted:
                continue
            reason = self._why(now)
            if reason.startswith("the cell"):  # its kernel answers: ask it where it was
                self.reason, interrupted = reason, now
                with contextlib.suppress(Exception):
                    await self.client.km.interrupt_kernel()
            elif reason:
                self.reason = reason
                await self._kill()
                return

    async def _kill(self) -> None:
        with contextlib.suppress(Exception):  # gone already: nbclient sees it
            await self.client.km.signal_kernel(signal.SIGKILL)
