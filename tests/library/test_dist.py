"""The d2l package as an sdist and a wheel: its metadata, contents and light imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.config.declarations import SHIPPED, shipped
from polybook.environments import venvs
from polybook.layout import ENVS_VARIABLE
from polybook.library.module_imports import imports
from polybook.library.package_spec import package_spec
from polybook.library.pins import cpu_pins

from ..books import build, code, copy_shipped, pages_book
from ..books import copy_fixture as copy_book
from ..environments import REPO_ENVS

REPO = Path(__file__).resolve().parents[2]
MODULES = {"pytorch": "torch", "mxnet": "mxnet", "jax": "jax", "tensorflow": "tensorflow"}
FRAMEWORK_MODULES = {"torch", "mxnet", "jax", "jaxlib", "flax", "tensorflow", "keras"}
OWN = {"jax": {"jax", "jaxlib", "flax"}, "tensorflow": {"tensorflow", "keras"}}

PROBE = """
import importlib, json, sys
before = set(sys.modules)
import d2l
package = sorted(set(sys.modules) - before)
lib = importlib.import_module("d2l." + sys.argv[1])
print(json.dumps({"package": package, "modules": sorted(sys.modules), "file": lib.__file__}))
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory, shared_environments: Path) -> Path:
    """The shipped book's package, built where its environments are set up (their pins
    are what it requires)."""
    folders = ("chapter_builders-guide", "img", "d2l")
    root = copy_shipped(
        tmp_path_factory.mktemp("dist") / "book", folders, ("config.ini", "index.md")
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVS_VARIABLE, str(shared_environments))
        assert main(["--quiet", "--root", str(root), "build", "dist"]) == 0
    return root


def wheel_of(root: Path) -> Path:
    (wheel,) = (root / "_build" / "dist").glob("*.whl")
    return wheel


def metadata(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return archive.read(name).decode().splitlines()


def test_the_wheel_holds_the_four_modules_at_the_books_release(dist: Path) -> None:
    config = load_config(dist)
    wheel = wheel_of(dist)
    assert wheel.name == f"d2l-{config.project.release}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        files = sorted(n for n in archive.namelist() if ".dist-info/" not in n)
    assert files == sorted(f"d2l/{m}.py" for m in [*MODULES.values(), "__init__"])
    (sdist,) = (dist / "_build" / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"pyproject.toml", "d2l/torch.py", "d2l/jax.py"} <= names


def test_frameworks_are_extras_and_nothing_is_capped(dist: Path) -> None:
    lines = metadata(wheel_of(dist))
    requires = [line.removeprefix("Requires-Dist: ") for line in lines if "Requires-Dist" in line]
    hard = sorted(r for r in requires if "extra ==" not in r)
    assert [r.split(">=")[0] for r in hard] == ["matplotlib", "numpy"]
    specs = [r.split(";")[0] for r in requires]
    assert not any("<" in s or "==" in s for s in specs)
    extras = sorted(line.split(": ")[1] for line in lines if line.startswith("Provides-Extra"))
    assert extras == sorted(MODULES.values())
    assert "torch>=2.13.0; extra == 'torch'" in requires
    assert any(r.startswith("flax>=") and "extra == 'jax'" in r for r in requires)
    # Every hard dependency is bounded below by the lowest pin of the environments.
    assert "numpy>=1.23.5" in hard
    python = next(line for line in lines if line.startswith("Requires-Python"))
    assert python.startswith("Requires-Python: >=3.")


def _oldest_python(spec: str) -> int:
    """The oldest Python 3 minor version ``spec`` (a Requires-Python) accepts."""
    accepted = SpecifierSet(spec)
    return next(m for m in range(0, 40) if any(accepted.contains(f"3.{m}.{p}") for p in (0, 99)))


def test_requires_python_is_the_newest_that_a_pinned_dependency_needs(dist: Path) -> None:
    """``pip`` installs the package only where the versions the book was built with install."""
    lines = metadata(wheel_of(dist))
    wheel = _oldest_python(next(x for x in lines if x.startswith("Requires-Python: "))[17:])
    needed = {}
    for line in lines:
        if line.startswith("Requires-Dist: "):
            name, _, version = line[15:].split(";")[0].strip().partition(">=")
            for info in REPO_ENVS.path.glob("*/lib/python*/site-packages/*.dist-info"):
                found, _, at = info.name.removesuffix(".dist-info").rpartition("-")
                if found.lower().replace("_", "-") == name and at.split("+")[0] == version:
                    said = (info / "METADATA").read_text(errors="replace").splitlines()
                    spec = next((x[17:] for x in said if x.startswith("Requires-Python: ")), "")
                    needed[name] = _oldest_python(spec) if spec else 0
    assert {"numpy", "torch", "jax"} <= set(needed)  # the environments are set up
    assert wheel == max(needed.values()) and wheel > 8, needed


def test_a_rebuild_gives_identical_files(dist: Path) -> None:
    before = {p.name: p.read_bytes() for p in (dist / "_build" / "dist").iterdir()}
    (dist / "_build" / "state.json").unlink()
    assert main(["--quiet", "--root", str(dist), "build", "dist"]) == 0
    after = {p.name: p.read_bytes() for p in (dist / "_build" / "dist").iterdir()}
    assert after == before


def test_a_book_without_a_release_cannot_be_packaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_book(tmp_path / "book")
    assert main(["--quiet", "--root", str(root), "build", "dist"]) == 1
    assert "[project] release is empty" in capsys.readouterr().err


def test_a_tab_no_environment_pins_shares_the_others_pins(tmp_path: Path) -> None:
    """An undeclared tab (a label, ``plain``) pins no numpy: a package every declared
    framework pins is still declared at its lowest pin, not a KeyError."""
    book = "[project]\nrelease = 1.0\n[build]\ntabs = pytorch, plain\n"
    save = (
        "%%tab all",
        "import numpy as np  #@save",
        "def ones():  #@save",
        "    return np.ones(1)",
    )
    root = pages_book(tmp_path / "book", {"index": code(*save)}, book)
    assert build(root, "lib") == 0
    spec = package_spec(load_config(root).book)
    numpy = [r for r in spec.dependencies if r.name == "numpy"]
    lowest = min((cpu_pins(f)["numpy"] for f in SHIPPED), key=Version)
    assert numpy and numpy[0].version == lowest, spec.dependencies


def test_a_framework_whose_module_is_not_its_distribution_is_its_extra(tmp_path: Path) -> None:
    """PaddlePaddle is imported as ``paddle``, a name another PyPI package has: the wheel
    requires ``paddlepaddle`` in the paddle extra, never ``paddle``."""
    book = "[project]\nrelease = 1.0\n[build]\ntabs = paddle\n"
    root = pages_book(tmp_path / "book", {"index": code("import paddle  #@save")}, book)
    assert build(root, "lib") == 0
    spec = package_spec(load_config(root).book)
    assert [r.name for r in spec.extras["paddle"]] == ["paddlepaddle"]
    assert "paddle" not in {r.name for r in spec.dependencies}


def test_optional_imports_are_those_guarded_by_import_error() -> None:
    source = (
        "import os, numpy\nfrom torch import nn\nfrom . import x\n"
        "def f():\n    import matplotlib.pyplot as plt\n"
        "    try:\n        from IPython import display\n    except ImportError:\n        pass\n"
        "    from IPython.display import Image\n"
    )
    assert imports(source) == (frozenset({"numpy", "torch", "matplotlib"}), frozenset({"IPython"}))


@pytest.mark.slow
def test_each_module_imports_with_only_its_framework_and_imports_no_other(
    dist: Path, tmp_path: Path
) -> None:
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    subprocess.run([*pip, "--target", str(target), str(wheel_of(dist))], check=True)
    for framework, module in MODULES.items():
        python = venvs.environment(framework, "cpu", REPO_ENVS).python
        environ = {"PATH": os.environ["PATH"], "PYTHONPATH": str(target)}
        done = subprocess.run(
            [str(python), "-c", PROBE, module],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
            env={**environ, **shipped(framework).kernel_variables()},
        )
        found = json.loads(done.stdout.strip().splitlines()[-1])
        assert found["file"] == str(target / "d2l" / f"{module}.py")
        assert found["package"] == ["d2l"]  # the package itself imports nothing
        loaded = {m.split(".")[0] for m in found["modules"]}
        assert loaded & FRAMEWORK_MODULES <= OWN.get(framework, {module}), framework
