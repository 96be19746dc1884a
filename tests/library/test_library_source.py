"""Where the students' notebooks install the book's library from, and the checks that a
first cell that cannot work is said at build time: the wheel the site or the notebooks'
repository publishes, the distribution name apart from the import name, the package index
asked through pip (a local PEP 503 index here: no network), the build's and doctor's words.
"""

from __future__ import annotations

import os
import socket
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import PolybookError, Reporter
from polybook.library.index import ABSENT, MISSING, OK, OTHER, UNCHECKED, check_library
from polybook.library.wheel import wheel_name, write_dist
from polybook.nb import reads
from polybook.notebooks.library_source import (
    INDEX,
    REPOSITORY,
    SITE,
    LibrarySource,
    library_source,
)
from polybook.notebooks.output import install_settings, notebook_sections
from polybook.notebooks.stage import write_notebooks
from polybook.notebooks.variants import REGISTRY

from ..books import executed_notebook, made_wheel, simple_index, write_book

LIBRARY = '''"""The library of a tiny book."""


def device_of(x):
    return "cpu"


def randn(*shape):
    return [0.0] * shape[0]
'''
CONFIG = "[project]\nname = tiny\nrelease = 0.1.0\n\n[build]\ntabs = pytorch\n"
PAGE = "# Tiny\n\n```{.python .input}\nfrom d2l import torch as d2l\nd2l.randn(2)\n```\n"
OTHERS = {"d2l/__init__.py": "", "d2l/torch.py": "def device_of(x):\n    return x\n"}


def tiny_book(root: Path, config: str = CONFIG) -> Path:
    files = {"index.md": PAGE, "d2l/__init__.py": "", "d2l/torch.py": LIBRARY}
    return write_book(root, files, config)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pip told to ask only a local index (returned: its folder), which holds another
    project's ``d2l`` 1.0.3, as the public index does."""
    other = made_wheel(tmp_path / "files", "d2l", "1.0.3", OTHERS)
    folder = tmp_path / "simple"
    url = simple_index(folder, [other])
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", url)
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    return folder


def test_the_first_cell_installs_the_published_wheel_from_the_site_or_the_repository(
    tmp_path: Path,
) -> None:
    config = load_config(tiny_book(tmp_path / "book"))
    colab, sagemaker, jupyter = REGISTRY["colab"], REGISTRY["sagemaker"], REGISTRY["jupyter"]
    wheel = "d2l-0.1.0-py3-none-any.whl"
    site = replace(
        config,
        html=replace(config.html, base_url="http://127.0.0.1:8/tiny/"),
        colab=replace(config.colab, github_repo=("me/nbs",)),
    )
    assert library_source(install_settings(site), "d2l", colab, "pytorch") == LibrarySource(
        f"http://127.0.0.1:8/tiny/_dist/{wheel}", SITE
    )
    repo = replace(
        config,
        colab=replace(config.colab, github_repo=("me/nbs",)),
        sagemaker=replace(config.sagemaker, github_repo=("pytorch", "me/torch-sm")),
    )
    for variant in (colab, jupyter):  # the Jupyter set names Colab's
        found = library_source(install_settings(repo), "d2l", variant, "pytorch")
        assert found.origin == REPOSITORY
        assert (
            found.requirement == f"https://github.com/me/nbs/raw/main/pytorch/colab/_dist/{wheel}"
        )
    # one repository per framework
    found = library_source(install_settings(repo), "d2l", sagemaker, "pytorch")
    assert found.requirement == f"https://github.com/me/torch-sm/raw/main/_dist/{wheel}"
    bare = library_source(install_settings(config), "d2l", colab, "pytorch")
    assert (bare.requirement, bare.origin) == ("d2l==0.1.0", INDEX)
    named = replace(config, library=replace(config.library, package="tiny-d2l"))
    assert (
        library_source(install_settings(named), "d2l", colab, "pytorch").requirement
        == "tiny-d2l==0.1.0"
    )
    site_named = replace(named, html=replace(named.html, base_url="https://example.org/"))
    assert library_source(install_settings(site_named), "d2l", colab, "pytorch").requirement == (
        "https://example.org/_dist/tiny_d2l-0.1.0-py3-none-any.whl"
    )
    own = replace(site, library=replace(site.library, install="{package}[torch]=={release}"))
    assert (
        library_source(install_settings(own), "d2l", colab, "pytorch").requirement
        == "d2l[torch]==0.1.0"
    )


def test_a_distinct_distribution_name_still_imports_as_the_package(tmp_path: Path) -> None:
    root = tiny_book(tmp_path / "book", CONFIG + "\n[library]\npackage = Tiny.D2L\n")
    config = load_config(root)
    written = write_dist(config.book, config.library, Reporter())
    (wheel,) = [p for p in written if p.suffix == ".whl"]
    assert wheel.name == wheel_name("Tiny.D2L", "0.1.0") == "tiny_d2l-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Name: Tiny.D2L" in meta.splitlines()
    assert "d2l/torch.py" in names
    with pytest.raises(PolybookError, match=r"config\.ini.*not a distribution name"):
        write_dist(config.book, replace(config.library, package="two words"), Reporter())
    (root / "config.ini").write_text(CONFIG + "\n[library]\npackage = two words\n")
    with pytest.raises(PolybookError, match=r"config\.ini:9.*not a distribution name"):
        load_config(root)


def test_the_index_check_tells_a_missing_version_another_projects_name_and_this_book(
    tmp_path: Path, index: Path
) -> None:
    modules = {"torch.py": LIBRARY}
    missing = check_library(Requirement("d2l==0.1.0"), "d2l", modules)
    assert missing.state == MISSING, missing
    assert "has no d2l 0.1.0 (its versions: 1.0.3)" in missing.detail
    assert "d2l 1.0.3 on the package index is another project's" in missing.detail
    assert "lacks 1 of the names this book saves (randn)" in missing.detail
    assert "[library] package" in missing.detail
    other = check_library(Requirement("d2l==1.0.3"), "d2l", modules)
    assert other.state == OTHER and "[library] package" in other.detail, other
    absent = check_library(Requirement("tiny-d2l==0.1.0"), "d2l", modules)
    assert absent.state == ABSENT, absent
    # The book's own wheel, published under its own name: this book's library.
    root = tiny_book(tmp_path / "book", CONFIG + "\n[library]\npackage = tiny-d2l\n")
    config = load_config(root)
    written = write_dist(config.book, config.library, Reporter())
    simple_index(index, [p for p in written if p.suffix == ".whl"])
    assert check_library(Requirement("tiny-d2l==0.1.0"), "d2l", modules).state == OK


def test_an_index_that_cannot_be_reached_is_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a port of 127.0.0.1 nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{port}/simple/")
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT"):
        monkeypatch.delenv(name, raising=False)
    found = check_library(Requirement("d2l==0.1.0"), "d2l", {"torch.py": LIBRARY})
    assert found.state == UNCHECKED and found.detail.startswith("not checked"), found


def first_cell(root: Path, variant: str = "colab") -> str:
    path = root / "_build" / "notebooks" / "pytorch" / variant / "index.ipynb"
    cell = next(c for c in reads(path.read_text()).cells if c.cell_type == "code")
    return str(cell.source.splitlines()[-1])


def students(root: Path, section: str = "", **changes: object) -> Reporter:
    """The student notebooks of ``root`` (the keys of its config's ``section`` changed by
    ``changes``), written from an executed notebook of its page; what the build said."""
    config = load_config(root)
    if section:
        changed = replace(getattr(config, section), **changes)
        config = replace(config, **{section: changed})
    nb = executed_notebook("index.md", "pytorch", [("from d2l import torch as d2l", [])])
    reporter = Reporter()
    sections = notebook_sections(config)
    write_notebooks(config.book, sections, {("index.md", "pytorch"): nb}, ("pytorch",), reporter)
    return reporter


def test_build_and_doctor_say_when_the_first_cell_cannot_work(
    tmp_path: Path, index: Path, capsys: pytest.CaptureFixture[str], shared_environments: Path
) -> None:
    root = tiny_book(tmp_path / "book")
    said = students(root)  # no address: the index's d2l, which is not this book's
    (warning,) = [w for w in said.warnings if w.subtype == "notebooks.install"]
    assert warning.message.startswith(
        "the students' notebooks install the library as `d2l==0.1.0`, from the package index"
    )
    assert "has no d2l 0.1.0" in warning.message and "another project's" in warning.message
    assert "set [html] base_url" in warning.message and not said.errors
    assert first_cell(root).endswith(" d2l==0.1.0 torch==2.13.0")
    # The shared environments are ready: what the first cell installs is a finding, not a
    # failure of the environments, which alone make doctor's exit 1.
    assert main(["--root", str(root), "doctor"]) == 0
    out = capsys.readouterr().out
    assert "  ✗ library       the students' notebooks install the library as `d2l" in out
    assert "      fix: set [html] base_url" in out
    assert [line for line in out.splitlines() if " library " in line] == [  # one line a check
        next(line for line in out.splitlines() if line.startswith("  ✗ library "))
    ]
    said = students(root, "library", install="d2l==1.0.3")  # the author's own: an error
    assert [e.subtype for e in said.errors] == ["notebooks.install"]
    assert "[library] install = d2l==1.0.3: d2l 1.0.3" in said.errors[0].message
    said = students(root, "html", base_url="http://127.0.0.1:8/tiny/")
    assert not said.warnings and not said.errors
    wheel = "d2l-0.1.0-py3-none-any.whl"
    assert (
        first_cell(root) == f"%pip install -q http://127.0.0.1:8/tiny/_dist/{wheel} torch==2.13.0"
    )
    assert (root / "_build" / "site_extra" / "_dist" / wheel).is_file()  # the site publishes it
    said = students(root, "colab", github_repo=("me/nbs",))
    assert not said.warnings and not said.errors
    assert f"me/nbs/raw/main/pytorch/colab/_dist/{wheel} " in first_cell(root)
    assert (root / "_build" / "notebooks" / "pytorch" / "colab" / "_dist" / wheel).is_file()
    assert not (root / "_build" / "notebooks" / "pytorch" / "_dist").exists()  # Jupyter's
