"""One notebook through :func:`polybook.execution.kernels.execute.execute`, in a real kernel."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from polybook.diagnostics import Location
from polybook.environments import venvs
from polybook.execution.kernels.cell_log import last_started
from polybook.execution.kernels.execute import execute
from polybook.execution.kernels.launch import KernelEnv
from polybook.nb import new_code_cell, new_notebook

from ..environments import REPO_ENVS
from ..kernels import forked_pytorch

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

    from polybook.execution.kernels.prompt_kernel import PromptKernelManager

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


def test_a_kernel_silent_at_its_start_is_replaced_and_the_notebook_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from polybook.execution.kernels import client as kernel_module
    from polybook.execution.kernels.prompt_kernel import PromptKernelClient

    env = venvs.environment("pytorch", "cpu", REPO_ENVS)
    venvs.ensure(env)
    monkeypatch.setattr(kernel_module, "START_ANSWER", 1)
    ready: set[int] = set()  # clients whose kernel is ready
    lost: list[int] = []  # requests made once ready, the first of them lost
    kernel_info, wait_for_ready = PromptKernelClient.kernel_info, PromptKernelClient.wait_for_ready

    def first_request_lost(self: PromptKernelClient) -> str:
        if id(self) in ready:
            lost.append(id(self))
            if len(lost) == 1:  # the first kernel never hears it: it stays silent
                return "never-sent"
        return str(kernel_info(self))

    async def noted_ready(self: PromptKernelClient, timeout: float | None = None) -> None:
        await wait_for_ready(self, timeout)
        ready.add(id(self))

    monkeypatch.setattr(PromptKernelClient, "kernel_info", first_request_lost)
    monkeypatch.setattr(PromptKernelClient, "wait_for_ready", noted_ready)
    nb = new_notebook()
    nb.cells.append(new_code_cell("print(6 * 7)", "c"))
    kernel = KernelEnv("pytorch", env.kernel_name, (str(env.kernels_dir),), tmp_path)
    ran = execute(nb, kernel)
    assert len(lost) == 2  # the silent kernel's request, then a fresh kernel's, answered
    assert ran.cells[0].outputs[0]["text"] == "42\n"


@pytest.mark.parametrize("fork", [False, True], ids=["started", "forked"])
def test_a_build_kernel_keeps_its_history_to_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: bool
) -> None:
    ipython = tmp_path / "ipython"  # the user's IPython folder, as kernels find it
    monkeypatch.setenv("IPYTHONDIR", str(ipython))
    env = venvs.environment("pytorch", "cpu", REPO_ENVS)
    venvs.ensure(env)
    nb = new_notebook()
    nb.cells.append(new_code_cell("answer = 6 * 7", "a"))
    nb.cells.append(new_code_cell("%history -n 1", "b"))
    with contextlib.ExitStack() as stack:
        kernel = (
            stack.enter_context(forked_pytorch(tmp_path / "cwd"))
            if fork
            else KernelEnv("pytorch", env.kernel_name, (str(env.kernels_dir),), tmp_path / "cwd")
        )
        ran = execute(nb, kernel)
    assert ran.cells[1].outputs[0]["text"] == "   1: answer = 6 * 7\n"  # its own history
    written = [p for p in ipython.rglob("*") if p.is_file()]
    assert not any(b"6 * 7" in p.read_bytes() for p in written), written
    assert not list(ipython.rglob("history.sqlite"))


def test_each_cell_that_starts_is_appended_to_one_log_and_the_last_whole_line_places_it(
    tmp_path: Path,
) -> None:
    # The log is written in place, a line per cell (a file renamed over it at each cell made
    # the file system flush it before the cell could start): each cell sees the same file,
    # holding one more line.
    log = tmp_path / "cells.jsonl"
    looks = f"import os; print(os.stat({str(log)!r}).st_ino, len(open({str(log)!r}).readlines()))"
    nb = new_notebook()
    nb.cells.extend(new_code_cell(looks, f"c{n}") for n in range(3))
    with forked_pytorch(tmp_path / "cwd") as env:
        ran = execute(nb, env, progress=log)
    seen = [cell.outputs[0]["text"].split() for cell in ran.cells]
    assert len({inode for inode, _ in seen}) == 1
    assert [int(lines) for _, lines in seen] == [1, 2, 3]
    assert last_started(log) == Location("<notebook>", 0, "pytorch", 3)
    with log.open("a") as cut:  # a worker killed in the middle of a line
        cut.write('{"path": "<notebook>", "line": 0, "framework": "pyt')
    assert last_started(log) == Location("<notebook>", 0, "pytorch", 3)
    assert last_started(tmp_path / "none.jsonl") is None
