"""Kernels forked from a warm zygote: each notebook starts from a clean namespace (nothing
one notebook changes reaches the next), its framework already imported, its math libraries'
threads sized to its share of the CPUs; a notebook's outputs are the same whether its kernel
was forked or started afresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybook.nb import reads
from polybook.parallel import usable_cpus

from .books import build, cells_book

pytestmark = pytest.mark.slow

LEAKS = """import os, builtins, sys, torch
torch.leaked = 1
builtins.leaked = 2
os.environ["POLYBOOK_LEAKED"] = "3"
sys.path.append("/leaked")
leaked = 4"""
CHECKS = """import os, builtins, sys
print("torch already imported:", "torch" in sys.modules)
import torch
print(json.dumps({
    "module": hasattr(torch, "leaked"),
    "builtins": hasattr(builtins, "leaked"),
    "environ": "POLYBOOK_LEAKED" in os.environ,
    "path": "/leaked" in sys.path,
    "namespace": "leaked" in globals(),
    "threads": torch.get_num_threads(),
    "wait": os.environ.get("OMP_WAIT_POLICY"),
}))"""
SEEDED = """import torch, numpy as np
torch.manual_seed(0)
np.random.seed(0)
print(torch.randn(3), np.random.rand(2).round(6), torch.arange(6).reshape(2, 3).sum(0))"""


def outputs(root: Path, page: str) -> list[str]:
    nb = reads((root / "_build/eval/pytorch" / f"{page}.ipynb").read_text(encoding="utf-8"))
    return [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs]


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    built = {}
    for fork in ("true", "false"):
        root = cells_book(
            tmp_path_factory.mktemp(f"fork-{fork}") / "book",
            {"a_leaks": LEAKS, "b_checks": "import json\n" + CHECKS, "c_seeded": SEEDED},
        )
        config = root / "config.ini"
        text = config.read_text().replace("jobs = 2", "jobs = 1")
        config.write_text(text + f"fork_kernels = {fork}\n")
        assert build(root, "eval") == 0
        built[fork] = root
    return built


def test_a_forked_kernel_starts_clean_with_its_framework_imported(books: dict[str, Path]) -> None:
    imported, report = outputs(books["true"], "b_checks")[0].splitlines()
    assert imported == "torch already imported: True"
    assert json.loads(report) == {
        "module": False,
        "builtins": False,
        "environ": False,
        "path": False,
        "namespace": False,
        "threads": usable_cpus(),  # one notebook at a time: the host's CPUs
        "wait": "PASSIVE",
    }


def test_a_kernel_started_afresh_imports_its_framework_itself(books: dict[str, Path]) -> None:
    assert outputs(books["false"], "b_checks")[0].startswith("torch already imported: False")


def test_outputs_are_the_same_forked_or_afresh(books: dict[str, Path]) -> None:
    assert outputs(books["true"], "c_seeded") == outputs(books["false"], "c_seeded")
