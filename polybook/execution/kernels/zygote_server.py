"""A framework's kernels forked from one warm process (runs in the framework's Python).

Starting a kernel costs a Python start, ipykernel and IPython, and then the notebook's first
cell imports the framework: seconds per notebook, spent again by each. The zygote pays that
once: it imports ipykernel, IPython, polybook's kernel extension and the framework, then
waits on a Unix socket. For each notebook it forks a child that becomes a fresh kernel: its
own working folder, environment, ``sys.path``, log and connection file, a new session (the
kernel's process group, as jupyter_client gives a kernel it starts), and a parent-death
signal. Each child starts from the zygote as it was after the imports, never from another
notebook's process: no state passes between notebooks. Nothing the frameworks start at
first use (thread pools, devices) exists yet when the zygote forks.

Requests and answers are JSON lines: ``{"spawn": {argv, env, cwd, log}}`` answers
``{"pid": N}``; ``{"status": N}`` answers ``{"returncode": R}`` (null while it runs; the
zygote reaps its children). Standard library only: the framework's environment does not
have polybook's dependencies.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import sys
from typing import Any

from polybook.kernel_imports import KERNEL_MODULES
from polybook.lifeline import die_with_parent

READY = "polybook-zygote-ready"


def preload(modules: list[str]) -> list[str]:
    """Import what every kernel imports; returns the modules that failed (the kernels then
    import them as usual, and say why).

    The imports run with the cyclic collector off: its full collections over the heap the
    imports build cost a fifth of TensorFlow's import. What the imports made is then frozen,
    so that a child's full collection neither scans it nor writes to it (each write copies a
    page of the zygote's memory into the child; unfrozen, one collection in a PyTorch kernel
    cost 0.13 s and copied 50 MB), and the collector is on again for the children.
    """
    failed = []
    gc.disable()
    try:
        for name in [*KERNEL_MODULES, *modules]:
            try:
                importlib.import_module(name)
            except Exception:  # the notebook's own import reports it
                failed.append(name)
    finally:
        gc.freeze()
        gc.enable()
    return failed


def _child(request: dict[str, Any], closing: list[socket.socket], zygote: int) -> None:
    """In the forked child: become the kernel the request describes; never returns."""
    status = 1
    try:
        for sock in closing:
            sock.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        die_with_parent(zygote)
        log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        given = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[1:1] = [p for p in given if p not in sys.path]
        if "numpy" in sys.modules:  # a fresh process seeds numpy's global state anew
            sys.modules["numpy"].random.seed()
        sys.argv = list(request["argv"])
        from polybook.authoring.kernel_ext import main

        main()
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


class ZygoteServer:
    """The server: a listening socket, its clients, and the children it forked."""

    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(16)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.clients: dict[socket.socket, bytes] = {}
        self.exited: dict[int, int] = {}
        self.children: set[int] = set()

    def _reap(self) -> None:
        for pid in list(self.children):
            with contextlib.suppress(ChildProcessError):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    self.children.discard(pid)
                    self.exited[pid] = os.waitstatus_to_exitcode(status)

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        self._reap()
        if "spawn" in request:
            zygote = os.getpid()
            pid = os.fork()
            if pid == 0:
                _child(request["spawn"], [self.listener, *self.clients], zygote)
            self.children.add(pid)
            return {"pid": pid}
        pid = int(request["status"])
        return {"returncode": self.exited.get(pid) if pid not in self.children else None}

    def serve(self) -> None:
        """Answer requests until the last client of a session hangs up after ``{"bye": 1}``
        or the parent goes."""
        while True:
            for key, _ in self.selector.select(timeout=1.0):
                sock = key.fileobj
                if sock is self.listener:
                    conn, _ = self.listener.accept()
                    self.clients[conn] = b""
                    self.selector.register(conn, selectors.EVENT_READ)
                    continue
                assert isinstance(sock, socket.socket)
                data = sock.recv(65536)
                if not data:
                    self.selector.unregister(sock)
                    self.clients.pop(sock, None)
                    sock.close()
                    continue
                self.clients[sock] += data
                while b"\n" in self.clients[sock]:
                    line, _, rest = self.clients[sock].partition(b"\n")
                    self.clients[sock] = rest
                    request = json.loads(line)
                    if "bye" in request:
                        return
                    sock.sendall(json.dumps(self._answer(request)).encode() + b"\n")
            self._reap()


def main(source: str) -> None:
    """``python -c … SOCKET MODULE…``: preload (polybook's own modules from ``source``, which
    then leaves ``sys.path`` as it does in a kernel), say ready on stdout, serve."""
    path, modules = sys.argv[1], sys.argv[2:]
    die_with_parent(os.getppid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker decides, and ends it
    failed = preload(modules)
    with contextlib.suppress(ValueError):
        sys.path.remove(source)
    zygote = ZygoteServer(path)
    print(json.dumps({READY: True, "failed": failed}), flush=True)
    zygote.serve()
