"""A worker process: ``python -m polybook.worker``, run by :mod:`polybook.executors`.

It reads job folders from stdin, one per line. A folder holds ``env.json`` (a
:class:`~polybook.execute.KernelEnv`) and ``in.ipynb``; the worker writes ``out.ipynb`` and
``result.json`` there, each atomically, and answers ``done``. SIGTERM shuts the kernel of
the job in hand down first.
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


def run_job(job_dir: Path) -> None:
    env = KernelEnv.from_json((job_dir / "env.json").read_text(encoding="utf-8"))
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


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    try:
        return serve()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
