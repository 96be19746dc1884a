"""Requirement sets: pinned, and the same versions for a framework's CPU and CUDA builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.config.declarations import SHIPPED
from polybook.config.requirements import normalized_pin, pins
from polybook.environments import venvs
from polybook.layout import EnvsFolder
from polybook.paths import REQUIREMENTS as PACKAGE_REQUIREMENTS

REQUIREMENTS = PACKAGE_REQUIREMENTS


def test_build_variants_normalize_to_one_name() -> None:
    assert normalized_pin("tensorflow[and-cuda]==2.21.0") == "tensorflow==2.21.0"
    assert normalized_pin("tensorflow_cpu==2.21.0") == "tensorflow==2.21.0"
    assert normalized_pin("mxnet-cu112==1.9.1") == "mxnet==1.9.1"
    assert normalized_pin("jax[cuda12]==0.8.1") == "jax==0.8.1"
    assert normalized_pin("Jupyter_Client==8.10.0") == "jupyter-client==8.10.0"


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_line_is_pinned_and_the_cuda_set_pins_the_cpu_versions(name: str) -> None:
    cpu = pins(REQUIREMENTS / "cpu" / f"{name}.txt")
    cuda = pins(REQUIREMENTS / "cuda" / f"{name}.txt")
    assert all("==" in pin and pin.split("==")[1] for pin in cpu + cuda)
    assert set(cpu) <= set(cuda)
    raw = (REQUIREMENTS / "cuda" / f"{name}.txt").read_text()
    assert raw != (REQUIREMENTS / "cpu" / f"{name}.txt").read_text()


def test_cpu_and_cuda_environments_share_one_cache_identity(tmp_path: Path) -> None:
    for name in SHIPPED:
        cpu = venvs.environment(name, "cpu", EnvsFolder(tmp_path))
        cuda = venvs.environment(name, "cuda", EnvsFolder(tmp_path))
        assert cpu.identity() == cuda.identity()
        assert cpu.requirements_hash() != cuda.requirements_hash()
