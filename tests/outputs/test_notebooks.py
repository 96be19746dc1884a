"""Student notebooks: per framework, for Jupyter, Colab and SageMaker, from the build's runs.

The fixture book is built for PyTorch with a page that hides cells and one whose GPU need
is inferred; the student's path runs a Colab notebook in a fresh venv holding only the
pinned framework and ipykernel, its install cell pointed at the wheel built here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat import NotebookNode

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.config.schema import KEYS, BadValue
from polybook.diagnostics import Location
from polybook.environments import installer, venvs
from polybook.execution.output_noise import OutputFilter
from polybook.nb import merge_streams, reads
from polybook.notebooks.stage import colab_url
from polybook.notebooks.variants import Repositories
from polybook.paths import REQUIREMENTS

from ..books import copy_fixture as copy_book
from ..processes import notebook_run

pytestmark = pytest.mark.slow
PAGES = ["index", "chap/index", "chap/tensors", "chap/more"]
GPU_PAGES = {"chap/tensors", "chap/more"}  # declared, inferred
VARIANTS = ["", "colab", "sagemaker"]
SITE = "https://example.org/tiny/"
EXTRA_CELLS = """
```{.python .input}
%%tab all
helper = 'hidden'  #@hide
```

```{.python .input}
%%tab all
print('only the output')  #@hide_code
```

```{.python .input}
%%tab all
device = 'cuda:0'
```
"""


def build(root: Path, target: str) -> None:
    assert main(["--quiet", "--root", str(root), "build", target, "--tab", "pytorch"]) == 0


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_book(tmp_path_factory.mktemp("students") / "book")
    with (root / "chap" / "more.md").open("a", encoding="utf-8") as page:
        page.write(EXTRA_CELLS)
    config = root / "config.ini"
    text = config.read_text(encoding="utf-8")
    text = text.replace("[project]\n", f"[project]\nrelease = 0.1.0\nsite_url = {SITE}\n")
    config.write_text(text + "\n[colab]\ngithub_repo = someone/tiny-notebooks\n")
    build(root, "dist")
    (wheel,) = (root / "_build" / "dist").glob("*.whl")
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[library]\n", f"[library]\ninstall = {wheel}\n"))
    build(root, "notebooks")
    return root


def student(root: Path, variant: str, page: str) -> NotebookNode:
    path = root / "_build" / "notebooks" / "pytorch" / variant / f"{page}.ipynb"
    return reads(path.read_text(encoding="utf-8"))


def executed(root: Path, page: str) -> NotebookNode:
    return reads((root / "_build" / "eval" / "pytorch" / f"{page}.ipynb").read_text())


def test_every_notebook_validates_and_the_zip_holds_the_jupyter_set(book: Path) -> None:
    folder = book / "_build" / "notebooks" / "pytorch"
    for variant in VARIANTS:
        for page in PAGES:
            path = folder / variant / f"{page}.ipynb"
            nbformat.validate(nbformat.read(path, as_version=4))  # type: ignore[no-untyped-call]
        assert (folder / variant / "img" / "box.svg").is_file()
        assert not (folder / variant / "d2l").exists()  # students import the installed one
    with zipfile.ZipFile(book / "_build" / "notebooks" / "tiny-pytorch.zip") as archive:
        names = sorted(archive.namelist())
    expected = [*(f"tiny-pytorch/{p}.ipynb" for p in PAGES), "tiny-pytorch/img/box.svg"]
    assert names == sorted(expected)


def test_gpu_metadata_is_exactly_on_the_notebooks_that_need_a_gpu(book: Path) -> None:
    for page in PAGES:
        colab = student(book, "colab", page)
        assert colab.metadata["colab"]["name"] == page.split("/")[-1] + ".ipynb"
        assert (colab.metadata.get("accelerator") == "GPU") == (page in GPU_PAGES), page
        for variant in VARIANTS:
            header = student(book, variant, page).cells[0].source
            assert ("needs a GPU" in header) == (page in GPU_PAGES), (variant, page)
            assert "accelerator" not in student(book, variant, page).metadata or variant


def test_cells_stay_as_the_site_shows_them_without_the_plumbing(book: Path) -> None:
    built = executed(book, "chap/more")
    for variant in VARIANTS:
        nb = student(book, variant, "chap/more")
        text = json.dumps(nb)
        assert "polybook-" + "pytorch" not in text and '"polybook": {' not in text
        assert "skip-execution" not in text and "iopub" not in text and "%%tab" not in text
        code = {c.id: c for c in nb.cells if c.cell_type == "code"}
        hidden = next(c for c in code.values() if "helper" in c.source)
        assert hidden.metadata.jupyter == {"source_hidden": True, "outputs_hidden": True}
        only_output = next(c for c in code.values() if "only the output" in c.source)
        assert only_output.metadata.jupyter == {"source_hidden": True}
        assert only_output.outputs[0].text == "only the output\n"  # outputs kept
        assert (only_output.metadata.get("cellView") == "form") == (variant == "colab")
        for cell in built.cells:
            if cell.cell_type == "code":
                assert code[cell.id].outputs == cell.outputs
        header = nb.cells[0]
        assert f"]({SITE}chap/more.html?tab=pytorch)" in header.source
        colab_link = "colab.research.google.com/github/someone/tiny-notebooks/blob/main/"
        assert (colab_link + "pytorch/colab/chap/more.ipynb" in header.source) == (
            variant != "colab"
        )
    assert student(book, "sagemaker", "chap/more").metadata.kernelspec.name == "python3"
    assert student(book, "colab", "chap/index").cells[-1].source == (
        "- [1.1 Tensors](tensors.ipynb)\n- [1.2 More](more.ipynb)"
    )
    assert ":label:" not in student(book, "", "chap/tensors").cells[1].source


def test_the_install_cell_installs_the_library_and_the_pinned_framework_only(
    book: Path,
) -> None:
    (wheel,) = (book / "_build" / "dist").glob("*.whl")
    for variant in ("colab", "sagemaker"):
        first = student(book, variant, "chap/tensors").cells[1]
        assert first.cell_type == "code"
        assert first.source.splitlines()[-1] == f"%pip install -q {wheel} torch==2.13.0"
        assert all(c.cell_type == "markdown" for c in student(book, variant, "index").cells)
    assert all("%pip" not in c.source for c in student(book, "", "chap/tensors").cells)


def test_a_warm_rebuild_executes_nothing_and_rewrites_nothing(book: Path) -> None:
    folder = book / "_build" / "notebooks"
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    (book / "_build" / "state.json").unlink()  # not a no-op build: every stage runs
    report = book / "_build" / "report.json"
    assert main(["-q", "--root", str(book), "build", "notebooks", "--tab", "pytorch",
                 "--report", str(report)]) == 0  # fmt: skip
    assert json.loads(report.read_text())["ran"] == []
    after = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    assert after == before


def test_config_pairs_name_frameworks_and_colab_links_follow_the_layout(book: Path) -> None:
    kernel = next(k for k in KEYS if k.section == "sagemaker" and k.name == "kernel")
    assert kernel.parse("pytorch conda_pytorch_p310, jax python3") == (
        "pytorch",
        "conda_pytorch_p310",
        "jax",
        "python3",
    )
    with pytest.raises(BadValue, match="framework value"):
        kernel.parse("pytorch conda_pytorch_p310 jax")
    loaded = load_config(book)
    config = replace(
        loaded, colab=replace(loaded.colab, github_repo=("pytorch", "someone/torch-colab"))
    )
    repos = Repositories(config.colab, config.sagemaker)
    assert colab_url(repos, "chap/more.md", "pytorch").endswith(
        "/someone/torch-colab/blob/main/chap/more.ipynb"
    )
    assert colab_url(repos, "chap/more.md", "jax") == ""


# The student's path: a fresh venv with only the pinned framework and ipykernel.


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("student") / "venv"
    where, failed = Location(str(path)), "the student's venv could not be set up"
    installer.make_venv(path, where, failed)  # by uv, as polybook's own: pip in it
    pins = REQUIREMENTS / "cpu" / "pytorch.txt"
    # numpy stands for what every platform ships: torch warns on import without it.
    wanted = ["-c", str(pins), "torch==2.13.0", "numpy", "ipykernel"]
    installer.install(path / "bin" / "python", wanted, where, failed, compile_all=False)
    return path


def run(path: Path, python: Path, cwd: Path, kernels: Path) -> NotebookNode:
    """Execute the notebook at ``path`` in a ``python3`` kernel of ``python``, in ``cwd``."""
    spec = {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]}
    (kernels / "python3").mkdir(parents=True, exist_ok=True)
    (kernels / "python3" / "kernel.json").write_text(
        json.dumps({**spec, "display_name": "Python 3", "language": "python"})
    )
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environ["PATH"] = f"{python.parent}{os.pathsep}{environ['PATH']}"
    # What pip resolves beyond the notebook's own pins, it resolves as the build's set.
    environ["PIP_CONSTRAINT"] = str(REQUIREMENTS / "cpu" / "pytorch.txt")
    command = notebook_run(path, kernels, cwd)
    subprocess.run(command, check=True, env=environ, cwd=cwd)
    return reads(path.read_text(encoding="utf-8"))


def texts(cell: NotebookNode, places: dict[Path, str]) -> list[Any]:
    """Stream text and plain-text results, what must match (counts and timings may not),
    with the places that differ by host (working folder, environment) named alike."""

    def same(text: str | None) -> str | None:
        for path, name in places.items():
            text = text.replace(str(path), name) if text else text
        return text

    return [
        (o.get("name"), same(o.get("text")), same(o.get("data", {}).get("text/plain")))
        for o in merge_streams(cell.outputs)  # a student's Jupyter splits them by timing
    ]


def unplaced(found: list[Any]) -> list[Any]:
    """``texts`` without the folder a package's file reads from (as the build stores them)."""
    drop = OutputFilter().unplaced
    return [(name, drop(t) if t else t, drop(p) if p else p) for name, t, p in found]


def test_the_colab_notebooks_run_in_a_fresh_venv_outside_the_book(
    book: Path, fresh_venv: Path, tmp_path: Path
) -> None:
    python = fresh_venv / "bin" / "python"
    home = tmp_path / "student"
    shutil.copytree(book / "_build" / "notebooks" / "pytorch" / "colab", home)
    eval_dir = book / "_build" / "eval" / "pytorch"
    build_env = venvs.environment("pytorch", "cpu", load_config(book).envs).path
    for page in ("chap/tensors", "chap/more"):
        nb = run(home / f"{page}.ipynb", python, (home / page).parent, tmp_path / "kernels")
        ran = {c.id: c for c in nb.cells if c.cell_type == "code"}
        for cell in executed(book, page).cells:
            if cell.cell_type == "code" and cell.execution_count is not None:
                # The build stores outputs without its packages' folder (output_noise): a
                # student's run reads the same once its own folder is left out alike.
                got = unplaced(texts(ran[cell.id], {home: "<here>"}))
                expected = texts(cell, {eval_dir: "<here>", build_env: "<env>"})
                assert got == expected, (page, cell.source)
    probe = "import json, sys, d2l.torch; print(json.dumps([d2l.__file__, list(sys.modules)]))"
    done = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=True, cwd=home
    )
    where, modules = json.loads(done.stdout)
    assert where.startswith(str(fresh_venv)), where  # the wheel's d2l, not a copy of the book's
    assert not {"mxnet", "jax", "flax", "tensorflow"} & {m.split(".")[0] for m in modules}
    assert sys.executable != str(python)
