"""GPU hosts without a GPU: the allotment read from a fake ``nvidia-smi`` and the process's
environment, existing interpreters (another venv) running a framework, and cache entries kept
apart by device class (a GPU host simulated by the scheduler's inventory)."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest
from nbformat import NotebookNode

from polybook.config import load_config
from polybook.diagnostics import PolybookError
from polybook.environments import devices
from polybook.environments.existing import ExistingEnvironment, existing_environment
from polybook.execution.jobs import Inventory
from polybook.meta import RunInfo, notebook_meta
from polybook.nb import new_code_cell, new_notebook
from polybook.render.page import provenance

from ..books import chapter_book, code, evaluate, ran
from ..environments import REPO_ENVS

PYTORCH = REPO_ENVS.path / "pytorch"
SMI_LINES = [f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i}{i}{i}{i}-cafe)" for i in range(4)]
SMI_LINES.insert(2, "  MIG 1g.10gb     Device  0: (UUID: MIG-7e57-0001)")


def fake_smi(folder: Path) -> Path:
    """An ``nvidia-smi`` that lists four GPUs (the second with a MIG instance)."""
    folder.mkdir(parents=True, exist_ok=True)
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\ncat <<'EOF'\n" + "\n".join(SMI_LINES) + "\nEOF\n")
    smi.chmod(0o755)
    return smi


def printed(nb: NotebookNode) -> list[str]:
    return [
        out["text"].strip()
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
    ]


# The allotment


def test_the_allotment_is_what_the_process_may_use(tmp_path: Path) -> None:
    path = f"{fake_smi(tmp_path / 'bin').parent}{os.pathsep}{os.defpath}"

    def allotted(**variables: str) -> tuple[str, ...]:
        return devices.allotment({"PATH": path, **variables}).ids

    assert allotted() == ("0", "1", "2", "3")
    assert allotted(CUDA_VISIBLE_DEVICES="2,3") == ("2", "3")
    assert allotted(CUDA_VISIBLE_DEVICES="") == ()  # set and empty: no GPU at all
    assert allotted(CUDA_VISIBLE_DEVICES="-1") == ()
    assert allotted(CUDA_VISIBLE_DEVICES="GPU-3333-cafe,GPU-1111") == ("GPU-3333-cafe", "GPU-1111")
    assert allotted(CUDA_VISIBLE_DEVICES="MIG-7e57-0001") == ("MIG-7e57-0001",)
    assert allotted(CUDA_VISIBLE_DEVICES="1,7,2") == ("1",)  # CUDA stops at an unknown device
    assert allotted(SLURM_JOB_GPUS="1,3") == ("1", "3")
    assert allotted(SLURM_STEP_GPUS="0-2", SLURM_JOB_GPUS="0-3") == ("0", "1", "2")
    assert allotted(CUDA_VISIBLE_DEVICES="3", SLURM_JOB_GPUS="0,1") == ("3",)
    assert devices.allotment({"PATH": os.defpath, "CUDA_VISIBLE_DEVICES": "0"}).ids == ()


def test_the_scheduler_hands_out_the_allotted_ids() -> None:
    inventory = Inventory(2, devices=("GPU-3333-cafe", "2"))
    assert inventory.ids((0, 1)) == ("GPU-3333-cafe", "2")
    assert Inventory(2).ids((1,)) == ("1",)


ONE_GPU = code("#@requires gpus=1", "import os", "print(os.environ['CUDA_VISIBLE_DEVICES'])")
TWO_GPUS = code("#@requires gpus=2", "import os", "print(os.environ['CUDA_VISIBLE_DEVICES'])")


@pytest.mark.slow
def test_kernels_get_only_the_gpus_allotted_to_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four GPUs listed, two allotted: every kernel sees only devices 2 and 3."""
    smi = fake_smi(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{smi.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    pages = {"one": ONE_GPU, "other": ONE_GPU, "third": ONE_GPU, "two": TWO_GPUS}
    root = chapter_book(tmp_path / "book", pages, "device = cpu\n")  # the venvs set up here
    report = evaluate(root)  # the inventory is the host's: its allotment
    seen = {path: printed(nb) for (path, _), nb in report.executed.items() if path != "index.md"}
    assert seen.pop("chap/two.md") == ["2,3"]
    assert seen and all(shown in (["2"], ["3"]) for shown in seen.values()), seen


# Existing environments


def borrowed_venv(target: Path, site: Path | None = PYTORCH) -> Path:
    """A venv of its own (not polybook's) that sees ``site``'s packages through a .pth."""
    base = PYTORCH / "bin" / "python"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(target)], check=True)
    if site is not None:
        packages = next(target.glob("lib/python*/site-packages"))
        found = next(site.glob("lib/python*/site-packages")) if site == PYTORCH else site
        (packages / "borrowed.pth").write_text(f"{found}\n")
    return target / "bin" / "python"


def env_section(python: Path, install: bool = False) -> str:
    kernel = "install_kernel = true\n" if install else ""
    return f"\n[env-pytorch]\npython = {python}\n{kernel}"


WHO = code("import sys, torch", "print(sys.executable)", "print(torch.__version__)")


@pytest.mark.slow
def test_an_existing_interpreter_runs_the_framework(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    python = borrowed_venv(tmp_path / "conda-like")
    build = f"envs_dir = {tmp_path / 'envs'}\n"
    root = chapter_book(tmp_path / "book", {"who": WHO}, build, env_section(python))
    with caplog.at_level(logging.INFO, logger="polybook"):
        report = evaluate(root)
    nb = report.executed[("chap/who.md", "pytorch")]
    executable, version = printed(nb)[0].split("\n")
    assert executable == str(python)
    run = notebook_meta(nb).run
    assert run is not None and run.framework_version == f"torch {version}"
    assert f"pytorch runs in an existing environment: {python} (torch " in caplog.text
    spec = next((tmp_path / "envs" / "kernels").glob("polybook-pytorch-*/kernel.json"))
    assert str(python) in spec.read_text()
    # The cache is keyed on what is installed there: a new package runs the notebook again.
    assert ran(evaluate(root)) == set()
    packages = next((python.parent.parent).glob("lib/python*/site-packages"))
    info = packages / "extra_tool-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: extra-tool\nVersion: 1.0\n")
    assert ran(evaluate(root)) == {"chap/who.md"}


def test_env_sections_are_read_per_tab(tmp_path: Path) -> None:
    extra = "\n[env-pytorch]\npython = ../venv/bin/python\n\n[env-jax]\npython = /x\n"
    config = load_config(chapter_book(tmp_path / "book", {"who": WHO}, extra=extra))
    # Relative to the book, links kept (a venv's python is a link to the base interpreter).
    assert config.env_for("pytorch").python == str(tmp_path / "venv" / "bin" / "python")
    assert config.env_for("pytorch").line == 10 and not config.env_for("pytorch").install_kernel
    assert [str(d) for d in config.ignored] == [
        "config.ini:12: [env-jax] is ignored: 'jax' is not a tab [polybook.config]"
    ]


def check(tmp_path: Path, python: Path, install: bool = False) -> ExistingEnvironment:
    root = chapter_book(tmp_path / "book", {"who": WHO}, extra=env_section(python, install))
    config = load_config(root)
    settings = config.env_for("pytorch")
    return existing_environment(config.book, "pytorch", settings, tmp_path / "envs")


def test_a_missing_interpreter_is_located(tmp_path: Path) -> None:
    with pytest.raises(PolybookError) as info:
        check(tmp_path, tmp_path / "nowhere" / "python")
    assert str(info.value) == (
        f"config.ini:10 [pytorch]: [env-pytorch] python: {tmp_path}/nowhere/python does not"
        " exist [polybook.env.existing]"
    )


def test_an_interpreter_without_the_framework_says_so(tmp_path: Path) -> None:
    python = borrowed_venv(tmp_path / "bare", site=None)
    with pytest.raises(PolybookError) as info:
        check(tmp_path, python)
    message = str(info.value)
    assert message.startswith(f"config.ini:10 [pytorch]: [env-pytorch] python: {python} (Python")
    assert "cannot import torch" in message and "ModuleNotFoundError" in message


def test_an_interpreter_without_ipykernel_names_both_fixes(tmp_path: Path) -> None:
    fake = tmp_path / "site"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("__version__ = '0.1'\n")
    python = borrowed_venv(tmp_path / "no-kernel", site=fake)
    with pytest.raises(PolybookError) as info:
        check(tmp_path, python)
    message = str(info.value)
    assert "has torch but not ipykernel" in message
    assert "set `install_kernel = true` in [env-pytorch]" in message
    assert f"`{python} -m pip install ipykernel==" in message
    # Allowed to install, it tries pip there, and says what failed (this venv has no pip).
    config = load_config(chapter_book(tmp_path / "b2", {"w": WHO}, extra=env_section(python, True)))
    with pytest.raises(PolybookError) as info:
        existing_environment(config.book, "pytorch", config.env_for("pytorch"), tmp_path / "envs")
    assert "[env-pytorch] install_kernel: " in str(info.value)
    assert "No module named pip" in str(info.value)


# Device classes


def test_device_dependence_is_read_from_the_code() -> None:
    assert devices.names_device("x = torch.ones(3, device=d2l.try_gpu())")
    assert devices.names_device("jax.devices()")
    assert devices.names_device("tf.config.list_physical_devices('GPU')")
    assert devices.names_device("npx.num_gpus()")
    assert not devices.names_device("x = 1  # runs on the GPU too")
    assert not devices.names_device("print(d2l.double(21))")
    nb = new_notebook()
    nb.cells.append(new_code_cell("y = 2", "c"))
    assert not devices.device_dependent(nb)
    nb.cells[0].metadata["polybook"] = {"requires": {"gpus": 1}}
    assert devices.device_dependent(nb)
    assert devices.bigger(devices.CPU) == (devices.CUDA,) and devices.bigger(devices.CUDA) == ()


def test_outputs_of_a_bigger_class_carry_their_provenance() -> None:
    lent = RunInfo(host_gpus=1, date="2025-01-02", framework_version="torch 2.5.1")
    lent = RunInfo(**{**lent.to_json(), "device_class": "cuda"})
    naming, plain = new_code_cell("x.device", "a"), new_code_cell("x + 1", "b")
    assert provenance(naming, lent, 0) == ""  # no outputs: nothing to vouch for
    naming.outputs = [{"output_type": "stream", "name": "stdout", "text": "cuda:0\n"}]
    plain.outputs = list(naming.outputs)
    assert provenance(naming, lent, 0) == (
        "output of a build on a host with 1 GPU (torch 2.5.1, 2025-01-02)"
    )
    assert provenance(plain, lent, 0) == ""
    assert provenance(naming, lent, 1) == ""  # the same class: its own kind of output


DEVICE = code("import torch", "torch.device('cuda' if torch.cuda.is_available() else 'cpu')")
PLAIN = code("print(6 * 7)")


@pytest.mark.slow
def test_a_cpu_run_is_never_shown_on_a_gpu_host(tmp_path: Path) -> None:
    """A device-dependent notebook is keyed on the host's class; others share entries."""
    root = chapter_book(tmp_path / "book", {"dev": DEVICE, "plain": PLAIN})
    assert ran(evaluate(root, Inventory(0))) == {"chap/dev.md", "chap/plain.md"}
    gpu = evaluate(root, Inventory(gpus=2))  # a GPU host, as the scheduler sees one
    assert ran(gpu) == {"chap/dev.md"} and gpu.cached == [("chap/plain.md", "pytorch")]
    run = notebook_meta(gpu.executed[("chap/dev.md", "pytorch")]).run
    assert run is not None and run.device_class == "cuda" and run.host_gpus == 2
    # Back on the CPU host, the bigger host's run is shown (with provenance), not its own.
    cpu = evaluate(root, Inventory(0))
    assert ran(cpu) == set()
    shown = notebook_meta(cpu.executed[("chap/dev.md", "pytorch")]).run
    assert shown is not None and shown.device_class == "cuda"
    plain = notebook_meta(cpu.executed[("chap/plain.md", "pytorch")]).run
    assert plain is not None and plain.device_class == "cpu"
