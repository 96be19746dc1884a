"""Execute stage: run one notebook in its framework's Jupyter kernel with nbclient."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import os
import re
import signal
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nbformat import NotebookNode

from polybook.diagnostics import Location, PolybookError
from polybook.execution.cell_log import CellLog
from polybook.execution.device_errors import MissingDevices, device_unavailable
from polybook.execution.launch import KernelEnv, figure_arguments, kernel_environ
from polybook.meta import cell_meta, notebook_meta, update_cell_meta
from polybook.nb import merge_streams, strip_ansi

if TYPE_CHECKING:
    from polybook.execution.forked import ZygoteConnection

logger = logging.getLogger("polybook")
SKIP_TAG = "skip-execution"
CELL_LINE = re.compile(r"(?:Cell In\[\d+\]|<ipython-input-\d+-\w+>), line (\d+)")


class CellError(PolybookError):
    """A cell failed: carries its source, ``ename``, ``evalue``, the traceback and the
    notebook as far as it ran."""

    def __init__(
        self,
        location: Location,
        ename: str,
        evalue: str,
        source: str,
        traceback: str,
        notebook: NotebookNode | None = None,
    ) -> None:
        self.ename, self.evalue, self.source, self.traceback = ename, evalue, source, traceback
        self.notebook = notebook
        message = f"{ename}: {evalue}" if ename else evalue
        missing = missing_package(ename, evalue)
        if missing:
            message += "; " + missing_package_hint(missing, location.framework)
        super().__init__(location, message, "exec.missing_package" if missing else "exec")


MISSING_MODULE = re.compile(r"^No module named '([A-Za-z_][\w]*)")


def missing_package(ename: str, evalue: str) -> str:
    """The top-level module a ``ModuleNotFoundError`` names, unless it is the book's own."""
    found = MISSING_MODULE.match(evalue) if ename == "ModuleNotFoundError" else None
    return found.group(1) if found and found.group(1) != "d2l" else ""


def missing_package_hint(module: str, framework: str) -> str:
    """How a book adds a package its notebooks import to the framework's environment."""
    return (
        f"the {framework} environment lacks {module!r}: pin its package (e.g. {module}==VERSION)"
        " in a requirement file named by [build] requirements in config.ini (`FILE` for every"
        f" framework, `{framework}:FILE` for this one), then run"
        f" `polybook env setup --tab {framework}`"
    )


def timeout_origin(cell: NotebookNode, default: int) -> str:
    """The limit of a cell and where it was set, for messages."""
    meta = cell_meta(cell)
    if meta.timeout:
        return f"{meta.timeout} s, set by `#@timeout {meta.timeout}`"
    return f"{default} s, set by [build] cell_timeout"


def exit_status(process: Any) -> str:
    """How a process (a ``Popen``) ended: ``exit code 3``, ``killed by signal 9 (SIGKILL)``;
    "" while it runs or where it is unknown."""
    code = process.poll() if process is not None else None
    if code is None:
        return ""
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = "unknown"
    memory = ": the system may have run out of memory" if -code == signal.SIGKILL else ""
    return f"killed by signal {-code} ({name}){memory}"


def _cell_error(
    exc: Exception,
    work: NotebookNode,
    index: int,
    framework: str,
    default_timeout: int,
    kernel: Any = None,
) -> CellError:
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    source = work.cells[index].source
    if isinstance(exc, CellExecutionError):
        where = _location(work, index, framework, exc.traceback)
        return CellError(where, exc.ename, exc.evalue, source, exc.traceback, work)
    where = _location(work, index, framework, "")
    if isinstance(exc, CellTimeoutError):
        limit = timeout_origin(work.cells[index], default_timeout)
        message = f"the cell timed out (limit {limit})"
        return CellError(where, "CellTimeoutError", message, source, "", work)
    ended = exit_status(kernel)
    message = f"the kernel died: {ended}" if ended else "the kernel died"
    return CellError(where, "DeadKernelError", message, source, "", work)


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


def _location(nb: NotebookNode, index: int, framework: str, traceback: str) -> Location:
    cell = nb.cells[index]
    meta = cell_meta(cell)
    hits = CELL_LINE.findall(strip_ansi(traceback))
    line = meta.source_line(int(hits[-1])) if hits else meta.line
    code_number = sum(1 for c in nb.cells[: index + 1] if c.cell_type == "code")
    path = notebook_meta(nb).source or "<notebook>"
    return Location(path, line, framework, code_number)


def _timeout(cell: NotebookNode, default: int) -> int:
    return cell_meta(cell).timeout or default


def _manager(env: KernelEnv, runtime: str, log: Path) -> tuple[Any, ZygoteConnection | None]:
    """The kernel's manager, and the connection to the zygote that forks its kernel (None:
    the kernel starts as jupyter_client starts kernels)."""
    from jupyter_client.kernelspec import KernelSpecManager

    from polybook.execution.ready import PromptKernelManager

    # Unix-socket transport: parallel kernels never compete for TCP ports.
    km = PromptKernelManager(
        kernel_name=env.kernel_name,
        kernel_spec_manager=KernelSpecManager(kernel_dirs=list(env.kernel_dirs)),
        transport="ipc",
        ip=os.path.join(runtime, "kernel"),
        connection_file=os.path.join(runtime, "connection.json"),
        client_class="polybook.execution.ready.PromptKernelClient",
    )
    if not env.zygote:
        return km, None
    from polybook.execution.forked import ForkingProvisioner, ZygoteConnection

    try:
        connection = ZygoteConnection(env.zygote)
    except OSError:  # the zygote is gone: this kernel starts afresh
        return km, None
    km.kernel_id = str(uuid.uuid4())
    provisioner = ForkingProvisioner(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)
    provisioner.zygote, provisioner.log_path = connection, str(log)
    km.provisioner = provisioner
    return km, connection


class SilentAtStart(Exception):
    """A kernel that started but did not answer the client's first request: no cell ran."""


# A build's kernels keep their input history in memory. IPython would write each cell to the
# user's history database: a file outside the book, and a commit per cell, by every kernel
# side by side (up to a tenth of the cells' own time in the shipped book).
KERNEL_ARGUMENTS = ("--HistoryManager.hist_file=:memory:",)
START_ANSWER = 60  # seconds a started kernel may take to answer before its first cell
START_TRIES = 2  # kernels tried for a notebook whose kernel stays silent at its start


def execute(
    nb: NotebookNode, env: KernelEnv, kernel_log: Path | None = None, progress: Path | None = None
) -> NotebookNode:
    """Run ``nb`` (left untouched) and return an executed copy; raises :class:`CellError`.

    What the kernel process writes outside Jupyter's capture goes to ``kernel_log``; the
    place of each cell that starts, to ``progress`` (a :class:`CellLog`). Where
    ``env`` names a zygote, the kernel is forked from it. A kernel that does not answer
    before its first cell is replaced by a fresh one (nothing of the notebook ran in it).
    """
    source = notebook_meta(nb).source or "<notebook>"
    silent = SilentAtStart()
    for _ in range(START_TRIES):
        try:
            return _execute_once(nb, env, kernel_log, progress)
        except SilentAtStart as exc:
            silent = exc
            logger.info("%s [%s]: its kernel was silent at its start", source, env.framework)
    message = f"the {env.framework} kernel started but never answered: {silent}"
    raise PolybookError(Location(source, 0, env.framework), message, "exec.kernel") from silent


def _execute_once(
    nb: NotebookNode, env: KernelEnv, kernel_log: Path | None, progress: Path | None
) -> NotebookNode:
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    from polybook.execution.watchdog import Watchdog

    work = copy.deepcopy(nb)
    mark_unrunnable(work, env.host_gpus)
    missing = MissingDevices()
    for cell in work.cells:  # what the cells not run would have bound
        if cell_meta(cell).skipped:
            missing.badged(str(cell.source), cell_meta(cell).skipped)
    env.cwd.mkdir(parents=True, exist_ok=True)
    current: dict[str, Any] = {"index": 0, "process": None}

    class WatchedClient(NotebookClient):
        def process_message(self, *args: Any, **kwargs: Any) -> Any:
            watchdog.heard()
            return super().process_message(*args, **kwargs)

        async def _check_raise_for_error(
            self, cell: NotebookNode, cell_index: int, exec_reply: dict[str, Any] | None
        ) -> None:
            if exec_reply is not None and badge_unavailable(cell, exec_reply, env, missing):
                return  # the host lacks the device: the notebook goes on
            await super()._check_raise_for_error(cell, cell_index, exec_reply)

        async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> Any:
            if cell is None:  # its kernel_info request before the first cell (see timeout)
                raise SilentAtStart(f"no answer to kernel_info in {timeout} s")
            return await super()._async_handle_timeout(timeout, cell)

    def on_cell_start(cell: NotebookNode, cell_index: int, **_: Any) -> None:
        current["index"] = cell_index
        watchdog.started(cell)
        current["process"] = current["process"] or getattr(km.provisioner, "process", None)
        if cells is not None:
            cells.started(_location(work, cell_index, env.framework, ""))

    def on_cell_executed(cell: NotebookNode, **_: Any) -> None:
        watchdog.finished()
        cell.outputs = merge_streams(cell.outputs)

    log_path = kernel_log or Path(os.devnull)
    with (
        tempfile.TemporaryDirectory(prefix="polybook-kernel-") as runtime,
        open(log_path, "ab") as log,
        CellLog(progress) if progress is not None else contextlib.nullcontext() as cells,
    ):
        km, zygote = _manager(env, runtime, log_path)
        client = WatchedClient(
            work,
            km=km,
            timeout_func=lambda cell: None,  # the watchdog keeps the time of cells
            timeout=START_ANSWER,  # of the waits outside cells: the kernel's first answer
            on_cell_start=on_cell_start,
            on_cell_executed=on_cell_executed,
            skip_cells_with_tag=SKIP_TAG,
            record_timing=True,
            shutdown_kernel="immediate",
            extra_arguments=[*KERNEL_ARGUMENTS, *figure_arguments(env.figure_format)],
        )
        watchdog = Watchdog(
            client,
            lambda cell: _timeout(cell, env.timeout),
            lambda cell: timeout_origin(cell, env.timeout),
        )

        async def run() -> None:
            guard = asyncio.ensure_future(watchdog.watch())
            try:
                await client.async_execute(
                    cleanup_kc=True,
                    cwd=str(env.cwd),
                    env=kernel_environ(env),
                    stdout=log,
                    stderr=log,
                )
            finally:
                guard.cancel()

        try:
            asyncio.run(run())  # a loop of our own per run (runs may happen in threads)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
            index = current["index"]
            if watchdog.reason:  # the traceback of an interrupted cell names its line
                traceback = exc.traceback if isinstance(exc, CellExecutionError) else ""
                where = _location(work, index, env.framework, traceback)
                source = work.cells[index].source
                raise CellError(
                    where, "CellTimeoutError", watchdog.reason, source, "", work
                ) from exc
            failed = (exc, work, index, env.framework, env.timeout, current["process"])
            raise _cell_error(*failed) from exc
        finally:
            if zygote is not None:
                zygote.close()
    return work
