"""Kernels forked from a warm zygote (:mod:`polybook.execution.zygote`), as jupyter_client
sees them: a kernel provisioner whose process is a child of the zygote, and the pool of a
worker's zygotes, one per framework environment, started on first use and kept for the
worker's later notebooks.

A zygote that cannot start (the framework's Python is broken, the fork is refused) is
reported once in the worker's log and the environment's kernels start as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import select
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning.local_provisioner import LocalProvisioner

from polybook.execution.zygote import READY
from polybook.paths import SOURCE_ROOT

logger = logging.getLogger("polybook")
START_TIMEOUT = 300.0  # seconds a zygote may take to import its framework
# What a kernel gets from its launch, not from the zygote's start: not part of a zygote's key.
PER_KERNEL = ("PYTHONPATH", "CUDA_VISIBLE_DEVICES", "JPY_PARENT_PID", "JPY_SESSION_NAME")
BOOT = (
    "import sys; sys.path.append({source!r}); "
    "from polybook.execution.zygote import main; main({source!r})"
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
    def of(cls, python: str, environ: Mapping[str, str], module: str) -> ZygoteSpec:
        kept = sorted((k, v) for k, v in environ.items() if k not in PER_KERNEL)
        return cls(python, tuple(kept), (module,) if module else ())


class Zygote:
    """One running zygote and the connection to it."""

    def __init__(self, spec: ZygoteSpec, folder: Path, log: IO[Any] | int) -> None:
        self.spec = spec
        self.path = str(folder / f"zygote-{os.getpid()}-{id(self):x}.sock")
        command = [spec.python, "-c", BOOT.format(source=str(SOURCE_ROOT)), self.path]
        self.process = subprocess.Popen(
            [*command, *spec.modules],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            env=dict(spec.environ),
        )
        self.sock: socket.socket | None = None
        self.failed: list[str] = []

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until the zygote has preloaded and listens; ZygoteError if it does not."""
        stdout = self.process.stdout
        if stdout is None:
            raise ZygoteError("the zygote has no standard output")
        line = b""
        if select.select([stdout], [], [], timeout)[0]:
            line = stdout.readline()  # the zygote prints one line when it is ready
        if READY not in line.decode(errors="replace"):
            self.close()
            raise ZygoteError(f"the zygote of {self.spec.python} did not start")
        self.failed = list(json.loads(line).get("failed", []))
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(self.path)
        self.reader = self.sock.makefile("rb")

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.sock is None or self.process.poll() is not None:
            raise ZygoteError("the zygote is not running")
        try:
            self.sock.sendall(json.dumps(request).encode() + b"\n")
            answer: dict[str, Any] = json.loads(self.reader.readline())
        except (OSError, ValueError) as exc:
            raise ZygoteError(f"the zygote stopped answering: {exc}") from exc
        return answer

    def spawn(self, argv: list[str], env: Mapping[str, str], cwd: str, log: str) -> int:
        request = {"argv": argv, "env": dict(env), "cwd": cwd, "log": log}
        return int(self.ask({"spawn": request})["pid"])

    def returncode(self, pid: int) -> int | None:
        """The child's exit status (negative: the signal), None while it runs."""
        code = self.ask({"status": pid})["returncode"]
        return None if code is None else int(code)

    def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.sendall(b'{"bye": 1}\n')
            self.sock.close()
            self.sock = None
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        Path(self.path).unlink(missing_ok=True)


class ForkedKernel:
    """A kernel process forked by a zygote, with the part of ``Popen`` jupyter_client uses."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.zygote, self.pid = zygote, pid
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                self.returncode = self.zygote.returncode(self.pid)
            except ZygoteError:
                self.returncode = -signal.SIGKILL  # the zygote went, and its children with it
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        while self.poll() is None:
            time.sleep(0.05)
        return int(self.returncode or 0)

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class ForkingProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, with the kernel forked by :attr:`zygote`."""

    zygote: Zygote | None = None
    log_path: str = os.devnull

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        if self.zygote is None:
            return await super().launch_kernel(cmd, **kwargs)
        env = kwargs.get("env") or dict(os.environ)
        cwd = str(kwargs.get("cwd") or Path.cwd())
        argv = ["-c", *cmd[3:]]  # as ``python -c BOOT -f FILE`` gives sys.argv
        pid = await asyncio.to_thread(self.zygote.spawn, argv, env, cwd, self.log_path)
        self.process = cast(Any, ForkedKernel(self.zygote, pid))  # what it uses of Popen
        self.pid = self.pgid = pid  # the child leads a session of its own
        self.cwd = cwd
        return self.connection_info


class ZygotePool:
    """A worker's zygotes, one per :class:`ZygoteSpec`, started on first use."""

    def __init__(self, log: IO[Any] | int = subprocess.DEVNULL) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="polybook-zygotes-"))
        self.log = log  # where the zygotes' own messages go: the worker's log
        self.zygotes: dict[ZygoteSpec, Zygote | None] = {}

    def get(self, spec: ZygoteSpec) -> Zygote | None:
        """The running zygote of ``spec``; None where it cannot run (kernels then start as
        usual)."""
        if spec in self.zygotes:
            zygote = self.zygotes[spec]
            if zygote is None or zygote.process.poll() is None:
                return zygote
        zygote = Zygote(spec, self.folder, self.log)
        try:
            zygote.wait_ready()
        except (ZygoteError, OSError) as exc:
            logger.warning("polybook: kernels of %s start afresh: %s", spec.python, exc)
            self.zygotes[spec] = None
            return None
        self.zygotes[spec] = zygote
        return zygote

    def close(self) -> None:
        for zygote in self.zygotes.values():
            if zygote is not None:
                zygote.close()
        self.zygotes.clear()
        with contextlib.suppress(OSError):
            for leftover in self.folder.iterdir():
                leftover.unlink()
            self.folder.rmdir()
