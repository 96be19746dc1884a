"""One notebook through :func:`polybook.execution.kernel.execute`, in a real kernel."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from polybook.environments import venvs
from polybook.execution.kernel import KernelEnv, execute
from polybook.nb import new_code_cell, new_notebook

from .books import REPO_ENVS

pytestmark = pytest.mark.slow

FLUSHED = """\
import sys
print('a', end=''); sys.stdout.flush()
print('b', file=sys.stderr); sys.stderr.flush()
print('c', end=''); sys.stdout.flush()
print('d')
display('shown')
print('e')"""


def test_a_run_of_stream_outputs_is_kept_as_one_whatever_the_flushes(tmp_path: Path) -> None:
    env = venvs.environment("pytorch", "cpu", REPO_ENVS)
    venvs.ensure(env)
    nb = new_notebook()
    nb.cells.append(new_code_cell(FLUSHED, "flushed"))
    kernel = KernelEnv("pytorch", env.kernel_name, (str(env.kernels_dir),), tmp_path)
    ran = execute(nb, kernel)
    outputs = ran.cells[0].outputs
    got = [(o.output_type, o.get("name"), o.get("text") or o.data["text/plain"]) for o in outputs]
    assert got == [
        ("stream", "stdout", "a"),
        ("stream", "stderr", "b\n"),
        ("stream", "stdout", "cd\n"),
        ("display_data", None, "'shown'"),
        ("stream", "stdout", "e\n"),
    ]
    assert nb.cells[0].outputs == []  # the notebook given is left as it was


def test_the_managers_ready_settles_when_a_kernel_starts_or_fails(tmp_path: Path) -> None:
    import asyncio

    from jupyter_client.kernelspec import KernelSpecManager

    from polybook.execution.ready import PromptKernelManager

    env = venvs.environment("pytorch", "cpu", REPO_ENVS)
    venvs.ensure(env)
    specs = KernelSpecManager(kernel_dirs=[str(env.kernels_dir)])

    async def start(name: str) -> PromptKernelManager:
        km = PromptKernelManager(kernel_name=name, kernel_spec_manager=specs)
        with contextlib.suppress(Exception):  # a missing kernel: ready holds the error
            await km.start_kernel(cwd=str(tmp_path))
        return km

    async def run() -> None:
        km = await start(env.kernel_name)
        assert km.ready.done() and km.ready.exception() is None
        assert await km.is_alive()
        await km.shutdown_kernel(now=True)
        assert not await km.is_alive()
        missing = await start("polybook-no-such-kernel")
        assert missing.ready.done() and missing.ready.exception() is not None

    asyncio.run(run())
