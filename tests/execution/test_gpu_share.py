"""A GPU host at full speed: how many notebooks share one GPU follows from what a fake
``nvidia-smi`` reports of its memory and from the cores (the H200 run's figures are the
reference), each sharing kernel is told its share, and the provenance of a GPU run names the
GPU, its driver and CUDA."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.config.declarations import shipped
from polybook.environments.gpu_info import gpu_info
from polybook.execution.gpu_share import planned_share
from polybook.execution.kernels.launch import kernel_env, kernel_environ
from polybook.meta import RunInfo
from polybook.nb import new_code_cell, node
from polybook.pipeline.execution import BookEnvironments, execution
from polybook.render.page import provenance

from ..books import chapter_book, code, evaluate, pages_book

H200 = "NVIDIA H200, 580.159.04, 143771"
SMI_HEADER = "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0     |"


def fake_smi(folder: Path, gpus: tuple[str, ...] = (H200,)) -> str:
    """A ``nvidia-smi`` answering ``-L``, ``--query-gpu=…`` and its plain table as one H200
    host's did; returns a ``PATH`` that finds it first."""
    folder.mkdir(parents=True, exist_ok=True)
    listed = "\n".join(f"GPU {i}: NVIDIA H200 (UUID: GPU-{i}{i}{i}-cafe)" for i in range(len(gpus)))
    smi = folder / "nvidia-smi"
    smi.write_text(
        '#!/bin/sh\ncase "$1" in\n'
        f"  -L) cat <<'EOF'\n{listed}\nEOF\n  ;;\n"
        f"  --query-gpu=*) cat <<'EOF'\n" + "\n".join(gpus) + "\nEOF\n  ;;\n"
        f"  *) echo '{SMI_HEADER}' ;;\nesac\n"
    )
    smi.chmod(0o755)
    return f"{folder}{os.pathsep}{os.defpath}"


def test_nvidia_smi_says_the_gpu_its_driver_cuda_and_memory(tmp_path: Path) -> None:
    info = gpu_info({"PATH": fake_smi(tmp_path / "bin")})
    assert (info.name, info.driver, info.cuda, info.memory_mib) == (
        "NVIDIA H200",
        "580.159.04",
        "13.0",
        143771,
    )
    assert info.describe() == "NVIDIA H200, driver 580.159.04, CUDA 13.0"
    # Two GPUs of different sizes: a notebook may land on the smaller.
    two = gpu_info({"PATH": fake_smi(tmp_path / "two", (H200, "NVIDIA L4, 580.159.04, 23034"))})
    assert two.memory_mib == 23034
    assert gpu_info({"PATH": str(tmp_path / "none")}).memory_mib == 0  # no driver


def test_auto_shares_a_gpu_by_its_memory_and_the_cores() -> None:
    # The H200 host (143,771 MiB, 16 cores): 8 at once, the fastest measured there.
    assert planned_share(0, 1, 143771, 16) == 8
    assert planned_share(0, 1, 16384, 64) == 4  # a 16 GiB GPU: its memory decides
    assert planned_share(0, 2, 143771, 16) == 4  # two GPUs share the cores
    assert planned_share(0, 1, 143771, 2) == 1  # a 2-core host: one at a time
    assert planned_share(0, 1, 0, 16) == 1  # memory not known: one at a time
    assert planned_share(0, 0, 0, 16) == 1
    assert planned_share(3, 1, 143771, 16) == 3  # as configured


def test_the_default_is_auto(tmp_path: Path) -> None:
    root = chapter_book(tmp_path / "book", {"page": code("x = 1")})
    assert load_config(root).build.gpu_share == 0  # auto
    other = chapter_book(tmp_path / "other", {"page": code("x = 1")}, "gpu_share = auto\n")
    assert load_config(other).build.gpu_share == 0


@pytest.mark.parametrize(
    ("framework", "expected"),
    [
        (
            "jax",
            {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.113"},
        ),
        ("tensorflow", {"TF_FORCE_GPU_ALLOW_GROWTH": "true"}),
        ("pytorch", {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}),
    ],
)
def test_each_sharing_kernel_is_told_its_share(
    tmp_path: Path, framework: str, expected: dict[str, str]
) -> None:
    assert shipped(framework).share_env(8) == expected
    assert shipped(framework).share_env(1) == {}  # alone on its GPU: the framework's defaults
    config_text = f"[project]\nname = g\n\n[build]\ntabs = {framework}\n"
    root = pages_book(tmp_path / "book", {"page": code("x = 1")}, config_text, "A book", "chap")
    config = load_config(root)
    [env] = BookEnvironments(config).named((framework,), "cuda").values()
    run = execution(config)

    def environ(gpus: int, share: int) -> dict[str, str]:
        made = kernel_env(config.book, run.build, "svg", env, Path(), "", gpus, share)
        return kernel_environ(made)

    told = environ(1, 8)
    assert {k: told[k] for k in expected} == expected
    assert not set(expected) & set(environ(1, 1))
    assert not set(expected) & set(environ(0, 8))  # no GPU: nothing to share


ENV_OF = code(
    "#@requires gpus=1",
    "import os",
    "print(os.environ.get('PYTORCH_CUDA_ALLOC_CONF', 'unset'))",
)


@pytest.mark.slow
def test_a_kernel_sharing_the_gpu_runs_with_its_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One GPU (the fake's), four notebooks to a GPU: the kernel's environment says so."""
    monkeypatch.setenv("PATH", f"{fake_smi(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    root = chapter_book(tmp_path / "book", {"env": ENV_OF}, "device = cpu\ngpu_share = 4\n")
    report = evaluate(root)  # the inventory is the host's: the fake's one GPU
    [nb] = [nb for (path, _), nb in report.executed.items() if path == "chap/env.md"]
    shown = [o["text"].strip() for c in nb.cells for o in c.get("outputs", []) if "text" in o]
    assert shown == ["expandable_segments:True"]


def test_the_note_of_a_gpu_run_names_the_gpu() -> None:
    run = RunInfo(
        host_gpus=1,
        date="2026-11-27T14:56:40Z",
        framework_version="torch 2.11.0",
        device_class="cuda",
        gpu="NVIDIA H200, driver 580.159.04, CUDA 13.0",
        seconds=2.358,
    )
    assert RunInfo.from_json(run.to_json()) == run
    shown = new_code_cell("x.device", "a")
    shown.outputs = [node({"output_type": "stream", "name": "stdout", "text": "cuda:0\n"})]
    assert provenance(new_code_cell("x.device", "b"), run, 0) == ""  # nothing shown: no note
    assert provenance(shown, run, 0) == (
        "output of a build on a host with 1 GPU (NVIDIA H200, driver 580.159.04, CUDA 13.0;"
        " torch 2.11.0; 2026-11-27)"
    )
