"""polybook as a package: the wheel ``python -m build`` makes holds every sub-package, every
module and every data file, and declares the ``polybook`` command."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from polybook.paths import PACKAGE_ROOT

from .books import REPO


def test_the_wheel_holds_every_sub_package_and_data_file(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(PACKAGE_ROOT, source / "polybook", ignore=ignore)
    command = [sys.executable, "-m", "build", "--wheel", "--no-isolation"]
    done = subprocess.run(
        [*command, "--outdir", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("polybook-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        path.relative_to(REPO).as_posix()
        for path in PACKAGE_ROOT.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    assert shipped - names == set(), "files of the package that the wheel lacks"
    for stage in ("source", "library", "environments", "execution", "render", "site", "pdf"):
        assert f"polybook/{stage}/__init__.py" in names
    assert {"polybook/frameworks.ini", "polybook/site/static/polybook-tabs.js"} <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "polybook = polybook.commands.cli:entry" in text
