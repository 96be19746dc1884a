"""Real kernels for the tests: the shipped PyTorch environment's kernels forked from a
zygote, and a notebook of one cell run in one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from polybook.execution.kernels.execute import execute
from polybook.execution.kernels.launch import KernelEnv, zygote_spec
from polybook.execution.kernels.zygote_pool import ZygotePool
from polybook.nb import new_code_cell, new_notebook

from .environments import REPO_ENVS


@contextlib.contextmanager
def forked_pytorch(cwd: Path) -> Iterator[KernelEnv]:
    """A PyTorch kernel environment whose kernels fork from a zygote, running until exit."""
    kernels = str(REPO_ENVS.kernels(REPO_ENVS.path / "pytorch"))
    pool = ZygotePool()
    try:
        env = KernelEnv("pytorch", "polybook-pytorch", (kernels,), cwd, fork=True)
        env = replace(env, zygote=pool.socket_for(zygote_spec(env)))
        assert env.zygote
        yield env
    finally:
        pool.close()


def run_cell(env: KernelEnv, code: str) -> str:
    """The text a one-cell notebook of ``code`` prints."""
    notebook = new_notebook()
    notebook.cells.append(new_code_cell(code, "c"))
    return str(execute(notebook, env).cells[0].outputs[0]["text"])
