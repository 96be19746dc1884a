"""The shipped ``d2l`` package: up to date, the same API everywhere, light to import."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.environments import venvs

from ..books import copy_shipped
from ..environments import REPO_ENVS

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
CONFIG = load_config(REPO)
HEAVY = ("matplotlib", "pandas", "PIL", "torchvision", "tensorflow_datasets", "IPython")

PROBE = """
import importlib, json, sys
framework = importlib.import_module(sys.argv[1])
before = set(sys.modules)
lib = importlib.import_module("d2l." + sys.argv[2])
added = sorted(set(sys.modules) - before)
names = sorted(n for n, v in vars(lib).items()
               if not n.startswith("_") and getattr(v, "__module__", None) == lib.__name__)
methods = sorted(f"{n}.{m}" for n in names if isinstance(vars(lib)[n], type)
                 for m in vars(vars(lib)[n]))
print(json.dumps({"names": names, "methods": methods, "added": added, "file": lib.__file__}))
"""


def probe(framework: str) -> dict[str, list[str]]:
    env = venvs.environment(framework, "cpu", REPO_ENVS)
    lib = CONFIG.library_for(framework).lib_name
    module = {"pytorch": "torch"}.get(framework, framework)
    done = subprocess.run(
        [str(env.python), "-c", PROBE, module, lib],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def probes() -> dict[str, dict[str, list[str]]]:
    return {fw: probe(fw) for fw in CONFIG.build.tabs}


def test_the_libraries_import_from_the_book_and_expose_the_same_names(
    probes: dict[str, dict[str, list[str]]],
) -> None:
    allowed = set(CONFIG.library.framework_specific)
    reference = set(probes["pytorch"]["names"]) - allowed
    assert {"Trainer", "Module", "DataModule", "try_gpu", "num_gpus"} <= reference
    for fw, found in probes.items():
        assert str(found["file"]).startswith(str(REPO / "d2l")), found["file"]
        assert set(found["names"]) - allowed == reference, fw
    # add_to_class methods live on their class only
    assert "Module.set_scratch_params_device" in probes["mxnet"]["methods"]
    assert "set_scratch_params_device" not in probes["mxnet"]["names"]


def test_importing_a_library_loads_no_plotting_or_dataset_package(
    probes: dict[str, dict[str, list[str]]],
) -> None:
    for fw, found in probes.items():
        heavy = [m for m in found["added"] if m.split(".")[0] in HEAVY]
        assert heavy == [], fw


def test_the_committed_libraries_are_what_the_book_extracts(tmp_path: Path) -> None:
    root = tmp_path / "book"
    copy_shipped(root, ("chapter_builders-guide", "img"), ("config.ini", "index.md"))
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    for fw in CONFIG.build.tabs:
        lib_file = CONFIG.library_for(fw).lib_file
        assert (root / lib_file).read_text() == (REPO / lib_file).read_text(), lib_file
