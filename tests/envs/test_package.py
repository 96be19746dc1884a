"""polybook as a package: the sdist and the wheel ``python -m build`` makes (the wheel from
the sdist) hold every sub-package, module and data file and declare the ``polybook``
command; installed into a fresh venv outside the repository, it starts a book, builds it
in a real kernel and says what is installed. The README's install lines work as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from polybook.paths import PACKAGE_ROOT

from ..books import REPO
from ..environments import REPO_ENVS, link_environments

SOURCE_FILES = ("pyproject.toml", "README.md")


def copy_source(source: Path) -> Path:
    """The files of the repository that make the package, copied into ``source``."""
    source.mkdir()
    for name in SOURCE_FILES:
        (source / name).write_bytes((REPO / name).read_bytes())
    files = [p for p in PACKAGE_ROOT.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for path in files:
        target = source / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    return source


def build_dists(tmp_path: Path) -> tuple[Path, Path]:
    """polybook's sdist, and the wheel built from it (as pip builds one from an sdist)."""
    source = copy_source(tmp_path / "src")
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist")]
    done = subprocess.run([*command, str(source)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    (sdist,) = (tmp_path / "dist").glob("polybook-*.tar.gz")
    (wheel,) = (tmp_path / "dist").glob("polybook-*.whl")
    return sdist, wheel


def shipped() -> set[str]:
    """The package's files, as paths in the wheel."""
    return {
        path.relative_to(REPO).as_posix()
        for path in PACKAGE_ROOT.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_the_sdist_and_its_wheel_hold_every_sub_package_and_data_file(tmp_path: Path) -> None:
    sdist, wheel = build_dists(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert shipped() - names == set(), "files of the package that the wheel lacks"
    with tarfile.open(sdist) as archive:
        in_sdist = {name.partition("/")[2] for name in archive.getnames()}
    assert shipped() - in_sdist == set(), "files of the package that the sdist lacks"
    for stage in ("source", "library", "environments", "execution", "render", "site", "pdf"):
        assert f"polybook/{stage}/__init__.py" in names
    assert {
        "polybook/frameworks.ini",
        "polybook/site/static/polybook-tabs.js",
        "polybook/requirements/cpu/pytorch.txt",
        "polybook/requirements/cuda/pytorch.txt",
        "polybook/requirements/node/package-lock.json",
    } <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "polybook = polybook.commands.cli:entry" in text
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    requires = [
        line.removeprefix("Requires-Dist: ")
        for line in zipfile.ZipFile(wheel).read(metadata).decode().splitlines()
        if line.startswith("Requires-Dist: ") and "extra ==" not in line
    ]
    assert requires and all(">=" in r for r in requires)  # ranges; the repository pins


@pytest.mark.slow
def test_the_installed_wheel_starts_builds_and_checks_a_book_outside_the_repository(
    tmp_path: Path,
) -> None:
    _, wheel = build_dists(tmp_path)
    home = tmp_path / "home"
    venv.EnvBuilder(with_pip=True).create(home)
    pip = [str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    constraints = ["--constraint", str(REPO / "requirements" / "tool.txt")]  # as tested here
    install = [*pip, *constraints, str(wheel)]
    done = subprocess.run(install, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # The book's environments: links to the shipped ones (the book pins the same sets);
    # MathJax: the repository's, where an installed polybook looks for it.
    data = tmp_path / "data"
    (data / "polybook").mkdir(parents=True)
    (data / "polybook" / "node").symlink_to((REPO_ENVS.path / "node").resolve())
    environ = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        "POLYBOOK_ENVS": str(link_environments(tmp_path / "envs")),
        "XDG_DATA_HOME": str(data),
        "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    }

    def polybook(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        command = [str(home / "bin" / "polybook"), *args]
        return subprocess.run(
            command, capture_output=True, text=True, env=environ, cwd=cwd, check=False
        )

    made = polybook("new", "mybook", "--frameworks", "pytorch", "--ci", "github", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    book = tmp_path / "mybook"
    built = polybook("build", "html", "--tab", "pytorch", cwd=book / "chapter_intro")
    assert built.returncode == 0, built.stdout + built.stderr
    assert "MathJax is not installed" not in built.stderr
    site = (book / "_build" / "html" / "chapter_intro" / "tensors.html").read_text()
    assert "tensor([1., 1., 1.])" in site
    assert (book / "_build" / "html" / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert "def ones(n):" in (book / "d2l" / "torch.py").read_text()
    (spec,) = (tmp_path / "envs" / "jupyter").glob("pytorch-*/kernels/polybook-pytorch")
    boot = json.loads((spec / "kernel.json").read_text())["argv"][2]
    assert str(home / "lib") in boot and str(REPO) not in boot  # the installed polybook
    doctor = polybook("doctor", cwd=book)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    first, *lines = doctor.stdout.splitlines()
    assert first.startswith("polybook ") and f"({home / 'lib'}" in first
    assert any(line.startswith("  ✓ pytorch       torch ") for line in lines), doctor.stdout
    assert any(line.startswith("  ✓ node assets") for line in lines), doctor.stdout


def install_block(page: Path) -> str:
    """The shell lines of the page's "Install polybook" section (its first fenced block)."""
    text = page.read_text(encoding="utf-8")
    section = text.partition("\n## Install polybook\n")[2].partition("\n## ")[0]
    found = re.search(r"^```bash\n(.*?)^```$", section, re.M | re.S)
    assert found, f"{page.name} has no install block"
    return found.group(1)


@pytest.mark.slow
def test_the_readme_install_lines_work_as_written_in_a_clone(tmp_path: Path) -> None:
    """The README's lines, run in the files of a clone with ``~`` a new home and the
    Python that runs the tests as ``python3``, install a ``polybook`` that runs; the wheel
    the README names is the one its ``pip wheel`` line makes."""
    readme = REPO / "README.md"
    block = install_block(readme)
    assert block == install_block(REPO / "docs" / "start.md")  # the guide's lines: the same
    assert "pip install ." in block
    text = readme.read_text(encoding="utf-8")
    wheel_line = re.search(r"`(pip wheel [^`\n]+)`", text)
    wheel_file = re.search(r"`pip install (dist/[^`\n]+\.whl)`", text)
    assert wheel_line and wheel_file
    clone = copy_source(tmp_path / "clone")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    environ = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        "HOME": str(tmp_path / "home"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    script = f"set -e\n{block}command -v polybook\npolybook --help\n{wheel_line.group(1)}\n"
    done = subprocess.run(
        ["bash", "-c", script], cwd=clone, env=environ, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    venv_bin = tmp_path / "home" / ".venvs" / "polybook" / "bin"
    assert f"\n{venv_bin / 'polybook'}\nusage: polybook " in f"\n{done.stdout}"
    assert (clone / wheel_file.group(1)).is_file()
