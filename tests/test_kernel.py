"""One notebook through :func:`polybook.execution.kernel.execute`, in a real kernel."""

from __future__ import annotations

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
