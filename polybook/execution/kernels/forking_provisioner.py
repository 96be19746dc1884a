"""A worker's side of forked kernels: jupyter_client's provisioner, with the kernel forked by
the zygote a job names (:mod:`polybook.execution.kernels.zygote_pool`) instead of started as
a process: to nbclient the kernel is as any other."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning.local_provisioner import LocalProvisioner

from polybook.execution.kernels.zygote_pool import START_TIMEOUT, ZygoteError

WAIT_TICK = 0.005  # seconds between two questions whether a killed kernel is gone
KILL_WAIT = 5.0  # seconds a killed kernel may take to go (the manager's own limit)


class ZygoteConnection:
    """A worker's connection to a zygote: it asks for kernels and how they ended."""

    def __init__(self, path: str, timeout: float = START_TIMEOUT) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.reader = self.sock.makefile("rb")
        self.lock = threading.Lock()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
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
        self.reader.close()
        self.sock.close()


class ForkedKernel:
    """A kernel process forked by a zygote, with the part of ``Popen`` jupyter_client uses."""

    def __init__(self, zygote: ZygoteConnection, pid: int) -> None:
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

    zygote: ZygoteConnection | None = None
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

    async def kill(self, restart: bool = False) -> None:
        """Kill the kernel's process group. A forked kernel counts as gone once SIGKILL is
        sent (nothing of it runs on; its zygote reaps it): the manager, which asks every
        tenth of a second, finds it gone at once. A kernel started as a process is waited
        for, asking every few milliseconds."""
        forked = self.process if isinstance(self.process, ForkedKernel) else None
        running = forked is not None and forked.poll() is None
        await super().kill(restart)
        if forked is not None and running:
            forked.returncode = -signal.SIGKILL
            return
        deadline = time.monotonic() + KILL_WAIT
        while self.process is not None and self.process.poll() is None:
            if time.monotonic() > deadline:
                return
            await asyncio.sleep(WAIT_TICK)
