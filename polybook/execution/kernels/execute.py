"""Execute stage: run one notebook in its framework's Jupyter kernel with nbclient
(:class:`~polybook.execution.kernels.client.WatchedClient`)."""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import tempfile
from pathlib import Path

from nbformat import NotebookNode

from polybook.diagnostics import Location, PolybookError
from polybook.execution.kernels.badges import mark_unrunnable
from polybook.execution.kernels.cell_log import CellLog
from polybook.execution.kernels.launch import KernelEnv
from polybook.meta import notebook_meta

logger = logging.getLogger("polybook")
START_TRIES = 2  # kernels tried for a notebook whose kernel stays silent at its start


def execute(
    nb: NotebookNode, env: KernelEnv, kernel_log: Path | None = None, progress: Path | None = None
) -> NotebookNode:
    """Run ``nb`` (left untouched) and return an executed copy; raises a
    :class:`~polybook.execution.kernels.cell_errors.CellError`.

    What the kernel process writes outside Jupyter's capture goes to ``kernel_log``; the
    place of each cell that starts, to ``progress`` (a :class:`CellLog`). Where
    ``env`` names a zygote, the kernel is forked from it. A kernel that does not answer
    before its first cell is replaced by a fresh one (nothing of the notebook ran in it).
    """
    from polybook.execution.kernels.client import SilentAtStart

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
    import asyncio

    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    from polybook.execution.kernels.client import WatchedClient, kernel_manager

    work = copy.deepcopy(nb)
    mark_unrunnable(work, env.host_gpus)
    env.cwd.mkdir(parents=True, exist_ok=True)
    log_path = kernel_log or Path(os.devnull)
    with (
        tempfile.TemporaryDirectory(prefix="polybook-kernel-") as runtime,
        open(log_path, "ab") as log,
        CellLog(progress) if progress is not None else contextlib.nullcontext() as cells,
    ):
        km, zygote = kernel_manager(env, runtime, log_path)
        client = WatchedClient(work, km, env, cells)
        try:  # a loop of our own per run (runs may happen in threads)
            asyncio.run(client.execute_watched(log))
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
            raise client.failure(exc) from exc
        finally:
            if zygote is not None:
                zygote.close()
    return work
