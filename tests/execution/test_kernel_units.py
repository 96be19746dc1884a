"""A kernel's description as a build reads it, without starting anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from polybook.execution.kernels.launch import KernelEnv, KernelSpec, kernel_spec, zygote_spec

SPEC = {
    "argv": ["/envs/x/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
    "display_name": "X",
    "language": "python",
    "env": {"POLYBOOK_FRAMEWORK": "x", "POLYBOOK_MODULE": "xlib"},
}


def _kernels(root: Path, folder: str) -> Path:
    (root / folder).mkdir(parents=True)
    (root / folder / "kernel.json").write_text(json.dumps(SPEC))
    return root


def test_a_kernelspec_is_read_as_jupyter_reads_it_and_planning_imports_no_jupyter_client(
    tmp_path: Path,
) -> None:
    near = _kernels(tmp_path / "near", "polybook-x")
    env = KernelEnv("x", "polybook-x", (str(tmp_path / "none"), str(near)), tmp_path)
    expected = KernelSpec(tuple(SPEC["argv"]), SPEC["env"])  # type: ignore[arg-type]
    assert kernel_spec(env) == expected
    # A folder named in capitals is found as Jupyter finds it: names are not case-sensitive.
    far = _kernels(tmp_path / "far", "Polybook-X")
    assert kernel_spec(KernelEnv("x", "polybook-x", (str(far),), tmp_path)) == expected
    code = (
        "import sys; from polybook.execution.kernels.launch import KernelEnv, zygote_spec\n"
        f"spec = zygote_spec(KernelEnv('x', 'polybook-x', ({str(near)!r},), {str(tmp_path)!r}))\n"
        "print(spec.python, spec.modules, 'jupyter_client' in sys.modules)"
    )
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert said.stdout.split() == ["/envs/x/bin/python", "('xlib',)", "False"]
    assert zygote_spec(env).modules == ("xlib",)


def test_a_zygote_imports_with_the_collector_off_then_freezes_what_it_imported(
    tmp_path: Path,
) -> None:
    # The collector's full passes over the heap the imports build cost a fifth of
    # TensorFlow's import; the kernels forked afterwards collect as usual.
    (tmp_path / "probe_mod.py").write_text("import gc\nCOLLECTING = gc.isenabled()\n")
    (tmp_path / "broken_mod.py").write_text("raise ImportError('broken on purpose')\n")
    code = (
        "import gc, sys; from polybook.execution.kernels.zygote_server import preload\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "failed = preload(['broken_mod', 'probe_mod'])\n"
        "import probe_mod\n"
        "print(probe_mod.COLLECTING, gc.isenabled(), gc.get_freeze_count() > 1000,"
        " 'broken_mod' in failed, 'probe_mod' in failed)"
    )
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert said.stdout.split() == ["False", "True", "True", "True", "False"]
