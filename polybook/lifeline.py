"""Child processes that die with their parent.

A build's helpers (the Sphinx process and the processes it forks, the notebook workers, the
page readers) must not outlive the build that started them: a killed build would otherwise
leave one writing into ``_build/`` beside the next build. On Linux a child asks the kernel
to send it a signal when its parent dies (``prctl(PR_SET_PDEATHSIG)``), and Sphinx's forked
workers do the same at each fork. Elsewhere, :func:`watch_parent` polls. A program that
starts programs of its own (latexmk, which runs xelatex) runs under a guard,
``python -m polybook.lifeline PROGRAM ARG…`` (:func:`run_guarded`), that ends its whole
process group with the build.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import subprocess
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library this process runs on (Linux), as loaded already: no search."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _prctl_deathsig(signum: int) -> bool:
    """Ask Linux for ``signum`` when the parent dies; False where that is not possible."""
    libc = _libc()
    try:
        return libc is not None and int(libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except AttributeError:
        return False


def die_with_parent(parent: int, signum: int = signal.SIGKILL) -> bool:
    """Receive ``signum`` when ``parent`` (this process's parent when it started) dies;
    the signal comes at once when it is gone already. False where the system cannot
    promise it (then :func:`watch_parent` stands in)."""
    armed = _prctl_deathsig(signum)
    if os.getppid() != parent:  # it died before the request was made
        os.kill(os.getpid(), signum)
    return armed


def forks_die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Each process this one forks from now on dies with it (Sphinx's parallel workers),
    also when it dies while the fork is made."""
    forking = {"parent": os.getpid()}

    def before() -> None:
        forking["parent"] = os.getpid()

    def in_child() -> None:
        die_with_parent(forking["parent"], signum)

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=before, after_in_child=in_child)


def watch_parent(parent: int, signum: int = signal.SIGTERM, every: float = 1.0) -> None:
    """Send this process ``signum`` once ``parent`` is no longer its parent (a thread polls
    every ``every`` seconds)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        with contextlib.suppress(ProcessLookupError):
            os.kill(os.getpid(), signum)

    threading.Thread(target=watch, name="polybook-parent-watch", daemon=True).start()


def run_guarded(argv: list[str]) -> int:
    """Run ``argv`` in a process group of its own, and end the whole group when this
    process's parent dies or this process is stopped: for a program that starts programs of
    its own (latexmk runs xelatex), which the parent-death signal alone would not reach.
    Returns the program's exit status (127: it was not found)."""
    child: subprocess.Popen[bytes] | None = None

    def end(signum: int, frame: object) -> None:
        if child is not None:  # the group's leader: the program, in a session of its own
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
        os._exit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, end)
    parent = os.getppid()
    if not die_with_parent(parent, signal.SIGTERM):
        watch_parent(parent, signal.SIGTERM)
    try:
        child = subprocess.Popen(argv, start_new_session=True)
    except OSError as exc:
        print(f"{argv[0]}: {exc}", file=sys.stderr)
        return 127
    return child.wait()


if __name__ == "__main__":  # python -m polybook.lifeline PROGRAM ARG…
    sys.exit(run_guarded(sys.argv[1:]))
