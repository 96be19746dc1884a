"""Notebook runs in a process of their own: ``python -m polybook.worker JOB_DIR | --serve``.

The job folder holds ``job.json`` (a :class:`polybook.scheduler.Job`); the worker writes
``result.json`` and ``out.ipynb`` there, each atomically. Killing the worker (SIGTERM) shuts
its kernel down first.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from .diagnostics import PolybookError
from .execute import CellError, KernelEnv, execute
from .fsutil import write_atomic
from .nb import reads, writes


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_job(job_dir: Path) -> int:
    job = json.loads((job_dir / "job.json").read_text(encoding="utf-8"))
    env_fields = dict(job["env"])
    env_fields["cwd"] = Path(env_fields["cwd"])
    for key in ("kernel_dirs", "pythonpath", "visible_gpus"):
        env_fields[key] = tuple(env_fields[key])
    env = KernelEnv(**env_fields)
    nb = reads((job_dir / "in.ipynb").read_text(encoding="utf-8"))
    started = time.monotonic()
    result: dict[str, object] = {"status": "ok"}
    try:
        done = execute(nb, env)
    except PolybookError as err:
        diag = err.diagnostic
        loc = diag.location
        done = err.notebook if isinstance(err, CellError) and err.notebook is not None else nb
        result = {
            "status": "error",
            "error": {
                "path": loc.path,
                "line": loc.line,
                "framework": loc.framework,
                "cell": loc.cell,
                "message": diag.message,
                "subtype": diag.subtype,
                "source": getattr(err, "source", ""),
                "traceback": getattr(err, "traceback", ""),
            },
        }
    result["seconds"] = time.monotonic() - started
    write_atomic(job_dir / "out.ipynb", writes(done))
    write_atomic(job_dir / "result.json", json.dumps(result))
    return 0


def serve() -> int:
    """Run the job folders named on stdin, one per line, answering ``done`` after each."""
    answers = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers on the pipe
    for line in sys.stdin:
        if line.strip():
            run_job(Path(line.strip()))
            answers.write("done\n")
            answers.flush()
    return 0


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _stop)
    try:
        return serve() if argv == ["--serve"] else run_job(Path(argv[0]))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
