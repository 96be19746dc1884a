"""nbclient's client for one notebook's run (:class:`WatchedClient`) and the kernel manager it
drives (:func:`kernel_manager`): imported by the run alone (nbclient, ZeroMQ, the Jupyter
client), not by the build."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat import NotebookNode

from polybook.execution.kernels.badges import SKIP_TAG, badge_unavailable
from polybook.execution.kernels.cell_errors import (
    CellError,
    cell_error,
    cell_location,
    timeout_origin,
)
from polybook.execution.kernels.cell_log import CellLog
from polybook.execution.kernels.device_errors import MissingDevices
from polybook.execution.kernels.launch import KernelEnv, figure_arguments, kernel_environ
from polybook.execution.kernels.watchdog import Watchdog
from polybook.meta import cell_meta
from polybook.nb import merge_streams

if TYPE_CHECKING:
    from polybook.execution.kernels.forking_provisioner import ZygoteConnection

# A build's kernels keep their input history in memory. IPython would write each cell to the
# user's history database: a file outside the book, and a commit per cell, by every kernel
# side by side (up to a tenth of the cells' own time in the shipped book).
KERNEL_ARGUMENTS = ("--HistoryManager.hist_file=:memory:",)
START_ANSWER = 60  # seconds a started kernel may take to answer before its first cell


class SilentAtStart(Exception):
    """A kernel that started but did not answer the client's first request: no cell ran."""


def kernel_manager(env: KernelEnv, runtime: str, log: Path) -> tuple[Any, ZygoteConnection | None]:
    """The kernel's manager, and the connection to the zygote that forks its kernel (None:
    the kernel starts as jupyter_client starts kernels)."""
    from jupyter_client.kernelspec import KernelSpecManager

    from polybook.execution.kernels.prompt_kernel import PromptKernelManager

    # Unix-socket transport: parallel kernels never compete for TCP ports.
    km = PromptKernelManager(
        kernel_name=env.kernel_name,
        kernel_spec_manager=KernelSpecManager(kernel_dirs=list(env.kernel_dirs)),
        transport="ipc",
        ip=os.path.join(runtime, "kernel"),
        connection_file=os.path.join(runtime, "connection.json"),
        client_class="polybook.execution.kernels.prompt_kernel.PromptKernelClient",
    )
    if not env.zygote:
        return km, None
    from polybook.execution.kernels.forking_provisioner import ForkingProvisioner, ZygoteConnection

    try:
        connection = ZygoteConnection(env.zygote)
    except OSError:  # the zygote is gone: this kernel starts afresh
        return km, None
    km.kernel_id = str(uuid.uuid4())
    provisioner = ForkingProvisioner(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)
    provisioner.zygote, provisioner.log_path = connection, str(log)
    km.provisioner = provisioner
    return km, connection


class WatchedClient(NotebookClient):
    """Runs ``nb`` (marked by :func:`~polybook.execution.kernels.badges.mark_unrunnable`) in
    the kernel of ``km``: a :class:`Watchdog` keeps the time of its cells and hears each
    message, the place of each cell that starts goes to ``cells``, a cell that fails for want
    of a device is badged and the notebook goes on, and a kernel that does not answer before
    the first cell raises :class:`SilentAtStart`. Its state is its own: the cell in hand, the
    kernel's process, the names badged cells would have bound."""

    def __init__(self, nb: NotebookNode, km: Any, env: KernelEnv, cells: CellLog | None) -> None:
        super().__init__(
            nb,
            km=km,
            timeout_func=lambda cell: None,  # the watchdog keeps the time of cells
            timeout=START_ANSWER,  # of the waits outside cells: the kernel's first answer
            on_cell_start=self._cell_started,
            on_cell_executed=self._cell_executed,
            skip_cells_with_tag=SKIP_TAG,
            record_timing=True,
            shutdown_kernel="immediate",
            extra_arguments=[*KERNEL_ARGUMENTS, *figure_arguments(env.figure_format)],
        )
        self.kernel_env, self.cell_log = env, cells
        self.missing_devices = MissingDevices()
        for cell in nb.cells:  # what the cells not run would have bound
            if cell_meta(cell).skipped:
                self.missing_devices.badged(str(cell.source), cell_meta(cell).skipped)
        self.cell_index = 0  # the cell in hand
        self.kernel_process: Any = None  # a Popen, where jupyter_client started the kernel
        self.badged = False  # the cell in hand failed for want of a device: it was badged
        self.watchdog = Watchdog(
            self,
            lambda cell: cell_meta(cell).timeout or env.timeout,
            lambda cell: timeout_origin(cell, env.timeout),
        )

    def _cell_started(self, cell: NotebookNode, cell_index: int, **_: Any) -> None:
        self.cell_index, self.badged = cell_index, False
        self.watchdog.started(cell)
        provisioner = getattr(self.km, "provisioner", None)
        self.kernel_process = self.kernel_process or getattr(provisioner, "process", None)
        if self.cell_log is not None:
            self.cell_log.started(cell_location(self.nb, cell_index, self.kernel_env.framework, ""))

    def _cell_executed(
        self, cell: NotebookNode, execute_reply: dict[str, Any] | None = None, **_: Any
    ) -> None:
        self.watchdog.finished()
        cell.outputs = merge_streams(cell.outputs)
        if execute_reply is not None:  # the host lacks the device: the notebook goes on
            self.badged = badge_unavailable(
                cell, execute_reply, self.kernel_env, self.missing_devices
            )

    def process_message(self, *args: Any, **kwargs: Any) -> Any:
        self.watchdog.heard()
        return super().process_message(*args, **kwargs)

    async def _check_raise_for_error(
        self, cell: NotebookNode, cell_index: int, exec_reply: dict[str, Any] | None
    ) -> None:
        if not self.badged:  # nbclient has no hook that lets a cell's error pass
            await super()._check_raise_for_error(cell, cell_index, exec_reply)

    async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> Any:
        if cell is None:  # its kernel_info request before the first cell (see timeout)
            raise SilentAtStart(f"no answer to kernel_info in {timeout} s")
        return await super()._async_handle_timeout(timeout, cell)

    async def execute_watched(self, log: IO[bytes]) -> None:
        """Run every cell, the watchdog beside them; the kernel writes to ``log``."""
        guard = asyncio.ensure_future(self.watchdog.watch())
        try:
            await self.async_execute(
                cleanup_kc=True,
                cwd=str(self.kernel_env.cwd),
                env=kernel_environ(self.kernel_env),
                stdout=log,
                stderr=log,
            )
        finally:
            guard.cancel()

    def failure(self, exc: Exception) -> CellError:
        """The error of the cell in hand, which ended the run with ``exc``."""
        work, index, env = self.nb, self.cell_index, self.kernel_env
        if self.watchdog.reason:  # the traceback of an interrupted cell names its line
            traceback = exc.traceback if isinstance(exc, CellExecutionError) else ""
            where = cell_location(work, index, env.framework, traceback)
            source = work.cells[index].source
            return CellError(where, "CellTimeoutError", self.watchdog.reason, source, "", work)
        return cell_error(exc, work, index, env.framework, env.timeout, self.kernel_process)
