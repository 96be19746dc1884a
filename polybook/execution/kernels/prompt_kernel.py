"""A kernel client that is ready as soon as the kernel is.

Its sockets connect before the forked kernel has bound its own, and ZeroMQ tries again
every tenth of a second by default: this client tries again after 5 ms, backing off to a
second. jupyter_client's client then waits for a ``kernel_info_reply`` on the shell
channel, checks that IOPub is connected, and drains IOPub until it has been silent for
0.2 s: a fifth of a second per notebook spent waiting for nothing. This client ends the
wait at the message that closes the request instead, the kernel's ``idle`` status for the
``kernel_info`` request it answered (the last thing a kernel publishes for a request),
which also proves IOPub connected. A request whose status never comes (IOPub joined late)
is sent again, as jupyter_client does.

Its manager, :class:`PromptKernelManager`, leaves out the hundredth of a second that
jupyter_client's manager waits after each start and shutdown so that its own tests can
see the pending state: a fiftieth of a second per notebook.
"""

from __future__ import annotations

import math
import time
from queue import Empty
from typing import Any

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager, KernelManager

SHELL_WAIT = 1.0  # seconds for a kernel_info reply before asking again
RECONNECT_MS = (5, 1000)  # ZeroMQ's first wait before connecting again, and its longest
IOPUB_WAIT = 0.05  # seconds for its idle status before asking again (IOPub joined late)


class PromptKernelClient(AsyncKernelClient):
    """jupyter_client's asynchronous client with a prompt :meth:`wait_for_ready`."""

    def start_channels(self, *args: Any, **kwargs: Any) -> None:
        first, longest = RECONNECT_MS  # for the sockets made from now on
        self.context.setsockopt(zmq.RECONNECT_IVL, first)
        self.context.setsockopt(zmq.RECONNECT_IVL_MAX, longest)
        super().start_channels(*args, **kwargs)

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (math.inf if timeout is None else timeout)
        while True:
            self.kernel_info()
            reply = await self._reply(SHELL_WAIT)
            if reply is not None and await self._idle_after(reply, IOPUB_WAIT):
                self._handle_kernel_info_reply(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    async def _reply(self, wait: float) -> dict[str, Any] | None:
        try:
            msg: dict[str, Any] = await self.shell_channel.get_msg(timeout=wait)
        except Empty:
            return None
        return msg if msg["msg_type"] == "kernel_info_reply" else None

    async def _idle_after(self, reply: dict[str, Any], wait: float) -> bool:
        """Whether IOPub brings the idle status of the request ``reply`` answers."""
        request = reply["parent_header"].get("msg_id")
        end = time.monotonic() + wait
        while (left := end - time.monotonic()) > 0:
            try:
                msg: dict[str, Any] = await self.iopub_channel.get_msg(timeout=left)
            except Empty:
                return False
            if (
                msg["msg_type"] == "status"
                and msg["parent_header"].get("msg_id") == request
                and msg["content"].get("execution_state") == "idle"
            ):
                return True
        return False


class PromptKernelManager(AsyncKernelManager):
    """jupyter_client's asynchronous manager, its start and shutdown without the pause (its
    own asynchronous methods are typed as the synchronous manager's: hence the ignores)."""

    async def start_kernel(self, **kwargs: Any) -> None:  # type: ignore[override]
        await self._unpaused(KernelManager._async_start_kernel, kwargs)

    async def shutdown_kernel(  # type: ignore[override]
        self, now: bool = False, restart: bool = False
    ) -> None:
        await self._unpaused(KernelManager._async_shutdown_kernel, {"now": now, "restart": restart})

    async def _unpaused(self, method: Any, kwargs: dict[str, Any]) -> None:
        """Run ``method`` without its pending-state wrapper (whose pause is the sleep), and
        settle :attr:`ready` as the wrapper does: when the kernel has started, or failed."""
        unwrapped = getattr(method, "__wrapped__", None)
        if unwrapped is None:  # a jupyter_client without the wrapper
            await method(self, **kwargs)
            return
        ready = self.ready
        try:
            await unwrapped(self, **kwargs)
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise
        if self.owns_kernel and not ready.done():
            ready.set_result(None)
