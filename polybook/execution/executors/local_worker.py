"""A worker process: ``python -m polybook.execution.executors.local_worker ANSWER_FD``, run by
the local executor (:mod:`polybook.execution.executors.local`).

It reads job folders from stdin, one per line. A folder holds ``env.json`` (a
:class:`~polybook.execution.kernels.launch.KernelEnv`) and ``in.ipynb``; the worker writes
``out.ipynb`` and ``result.json`` there, each atomically, and answers ``done`` on the pipe
``ANSWER_FD``. That pipe is not inherited by kernels, and the worker's own stdout goes to
its log, so nothing a kernel prints can reach the protocol. SIGTERM shuts the kernel of
the job in hand down first; so does the loss of the process that started the worker.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from polybook.diagnostics import Location, PolybookError
from polybook.execution.jobs import Failure
from polybook.execution.kernels.cell_errors import CellError
from polybook.execution.kernels.execute import execute
from polybook.execution.kernels.launch import KernelEnv
from polybook.fsutil import write_atomic
from polybook.lifeline import die_with_parent, watch_parent
from polybook.meta import notebook_meta
from polybook.nb import reads, writes

PROGRESS = "cells.jsonl"  # in a job's folder: the cells it started (a CellLog)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_job(job_dir: Path) -> None:
    env = KernelEnv.from_json((job_dir / "env.json").read_text(encoding="utf-8"))
    nb = reads((job_dir / "in.ipynb").read_text(encoding="utf-8"))
    started = time.monotonic()
    result: dict[str, object] = {"status": "ok"}
    done = nb
    try:
        done = execute(nb, env, job_dir / "kernel.log", job_dir / PROGRESS)
    except CellError as err:
        done = err.notebook if err.notebook is not None else nb
        failure = Failure(err.source, err.traceback)
        result = {
            "status": "error",
            "error": err.diagnostic.to_json(),
            "failure": failure.to_json(),
        }
    except PolybookError as err:
        result = {"status": "error", "error": err.diagnostic.to_json()}
    except Exception as exc:  # the kernel could not start, or the client failed
        where = Location(notebook_meta(nb).source or "<notebook>", 0, env.framework)
        message = _start_failure(exc, job_dir / "kernel.log", env.framework)
        failed = PolybookError(where, message, "exec.kernel")
        result = {"status": "error", "error": failed.diagnostic.to_json()}
    result["seconds"] = time.monotonic() - started
    write_atomic(job_dir / "out.ipynb", writes(done))
    write_atomic(job_dir / "result.json", json.dumps(result))


def _start_failure(exc: Exception, kernel_log: Path, framework: str) -> str:
    """The cause of a kernel that never ran: the exception and the kernel's last words."""
    from polybook.environments.venvs import setup_command  # a tenth of the worker's imports

    message = (
        f"the {framework} kernel could not run the notebook: {type(exc).__name__}: {exc} "
        f"(if the environment is broken, `{setup_command(framework)}` repairs it)"
    )
    try:
        said = kernel_log.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        said = ""
    if said:
        message += "\n" + "\n".join(said.splitlines()[-8:])
    return message


def serve(answers_fd: int) -> int:
    """Run the job folders named on stdin, one per line, answering ``done`` after each."""
    os.set_inheritable(answers_fd, False)
    with os.fdopen(answers_fd, "w", buffering=1) as answers:
        for line in sys.stdin:
            if line.strip():
                run_job(Path(line.strip()))
                answers.write("done\n")
                answers.flush()
    return 0


def warm() -> None:
    """Import what running a notebook imports (the Jupyter client, ZeroMQ, nbclient): a
    worker started ahead does so while the zygotes import, not when its first job comes."""
    import nbclient  # noqa: F401

    import polybook.execution.kernels.client
    import polybook.execution.kernels.forking_provisioner
    import polybook.execution.kernels.prompt_kernel  # noqa: F401


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    # Stop (shutting the kernel down) when the process that started this one is gone: at
    # once where Linux tells, else within a second.
    die_with_parent(os.getppid(), signal.SIGTERM)
    watch_parent(os.getppid(), signal.SIGTERM)
    try:
        warm()
        return serve(int(sys.argv[1]))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Every job's files are written by now: the interpreter's teardown (a tenth of a second
    # that the build waits for) has nothing left to do.
    os._exit(status)
