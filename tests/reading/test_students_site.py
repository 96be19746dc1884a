"""The shipped book's student notebooks as a student runs them: the site served over HTTP
on 127.0.0.1 as the published site (``[html] base_url``), a fresh venv without polybook,
the Colab notebook's first cell (its ``%pip`` line as pip's arguments) and then the whole
notebook with nbclient on the CPU: no error outside the cells badged as needing a GPU.

The venv stands for the platform: its framework is the one the platform ships (the build's
environment, reached through a ``.pth`` file), and everything of the book's library comes
from the wheel the site serves. The first cell's framework pins are checked against the
package index pip is configured with (each names a distribution of that version there) and
against the build's environment (the version it holds, by that name or, ``tensorflow`` for
``tensorflow-cpu``, by another of the framework's; such a pin is left to the platform).
One page in each framework here; ``STUDENT_PAGES=all`` runs every page of the book, both
platforms.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import urllib.request
import venv
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from nbformat import NotebookNode

from polybook.config import load_config
from polybook.config.declarations import shipped
from polybook.environments import venvs
from polybook.environments.packages import canonical
from polybook.meta import cell_meta
from polybook.nb import reads, writes

from ..books import build, copy_shipped, link_cache
from ..processes import notebook_run

pytestmark = pytest.mark.slow
FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
PAGE = "chapter_builders-guide/custom-layer"  # calls names only this book's library has
ALL = os.environ.get("STUDENT_PAGES") == "all"


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(shipped_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The shipped book's site served on 127.0.0.1, and a copy of the book whose
    ``base_url`` is that address, its student notebooks built (from the site's cache)."""
    site = shipped_site / "_build" / "html"
    handler = partial(Quiet, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    base = f"http://127.0.0.1:{server.server_port}/"
    root = copy_shipped(tmp_path_factory.mktemp("students") / "book")
    cache = Path("_build") / "cache" / "exec"
    link_cache(shipped_site / cache, root / cache)
    config = root / "config.ini"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^base_url =.*$", f"base_url = {base}", text)
    config.write_text(text)
    assert load_config(root).html.base_url == base
    assert build(root, "notebooks", "--tab", "all") == 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root
    finally:
        server.shutdown()
        server.server_close()


def platform_venv(path: Path, framework: str, book: Path) -> Path:
    """A fresh venv whose framework is the platform's: the build's environment's packages
    through a ``.pth`` file. Its Python."""
    venv.EnvBuilder(with_pip=True).create(path)
    (site,) = path.glob("lib/python*/site-packages")
    (site / "platform.pth").write_text(f"{platform_packages(framework, book).resolve()}\n")
    return path / "bin" / "python"


def platform_packages(framework: str, book: Path) -> Path:
    env = venvs.environment(framework, "cpu", load_config(book).envs).path
    (platform,) = env.glob("lib/python*/site-packages")
    return platform


def on_the_index(pins: list[str]) -> dict[str, str]:
    """What pip, as this host configures it (its index, its wheel cache), finds for
    ``pins``: name -> version, from the distributions' own metadata (none installed)."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed"]
    command += ["--no-deps", "--quiet", "--report", "-", *pins]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"pip finds no {pins} on the index: {done.stderr[-2000:]}"
    found = json.loads(done.stdout)["install"]
    return {canonical(i["metadata"]["name"]): i["metadata"]["version"] for i in found}


def platform_pins(framework: str, book: Path, pins: list[str]) -> list[str]:
    """The first cell's framework ``pins``, checked: each names a distribution of that
    version on the package index, and the version the build's environment holds, by its
    name or (``tensorflow`` for ``tensorflow-cpu``) another name of the framework's. Those
    held under another name, which the student's install leaves to the platform."""
    found = on_the_index(pins)
    held = {
        canonical(name): version.split("+")[0]
        for name, _, version in (
            p.name.removesuffix(".dist-info").rpartition("-")
            for p in platform_packages(framework, book).glob("*.dist-info")
        )
    }
    names = {canonical(d) for d in shipped(framework).distributions}
    elsewhere = []
    for pin in pins:
        name, _, version = pin.partition("==")
        name = canonical(name.split("[")[0])
        assert found.get(name, "").split("+")[0] == version, (pin, found)
        if held.get(name) == version:
            continue
        assert name in names and version in {held.get(n) for n in names}, (pin, held)
        elsewhere.append(pin)
    return elsewhere


def first_cell(nb: NotebookNode) -> list[str]:
    """The arguments of the first cell's ``%pip install``."""
    cell = next(c for c in nb.cells if c.cell_type == "code")
    line = cell.source.splitlines()[-1]
    assert line.startswith("%pip install -q "), cell.source
    return shlex.split(line.removeprefix("%pip install -q "))


def student_environ(python: Path) -> dict[str, str]:
    """This process's environment as a student's: no path into polybook's checkout."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environ["PATH"] = f"{python.parent}{os.pathsep}{environ['PATH']}"
    return environ


def run(path: Path, python: Path, cwd: Path, kernels: Path) -> NotebookNode:
    """Execute the notebook at ``path`` in a kernel of ``python`` named as it names its own."""
    name = reads(path.read_text(encoding="utf-8")).metadata.kernelspec.name
    spec = {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]}
    (kernels / name).mkdir(parents=True, exist_ok=True)
    (kernels / name / "kernel.json").write_text(
        json.dumps({**spec, "display_name": "Python 3", "language": "python"})
    )
    command = notebook_run(path, kernels, cwd, allow_errors=True)
    subprocess.run(command, check=True, env=student_environ(python), cwd=cwd)
    return reads(path.read_text(encoding="utf-8"))


def errors_outside_gpu_cells(ran: NotebookNode, executed: NotebookNode) -> list[str]:
    """The cells that raised, other than those the build badged as needing a GPU."""
    gpu = {c.id for c in executed.cells if c.cell_type == "code" and cell_meta(c).gpus > 0}
    return [
        f"{c.source.splitlines()[0] if c.source else ''!r}: {o.ename}: {o.evalue}"
        for c in ran.cells
        if c.cell_type == "code" and c.id not in gpu
        for o in c.outputs
        if o.output_type == "error"
    ]


def needs_gpu(nb: NotebookNode) -> bool:
    """Whether the notebook says it needs a GPU (its header, as every platform's does)."""
    return "needs a GPU" in nb.cells[0].source


def pages(book: Path, framework: str) -> list[str]:
    if not ALL:
        return [PAGE]
    folder = book / "_build" / "notebooks" / framework / "colab"
    return sorted(p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.ipynb"))


def student_run(book: Path, framework: str, variant: str, tmp: Path) -> list[str]:
    """A student's run of ``variant``'s notebooks of ``framework``: what went wrong."""
    home = tmp / "home"
    shutil.copytree(book / "_build" / "notebooks" / framework / variant, home)
    problems: list[str] = []
    python: Path | None = None
    for page in pages(book, framework):
        nb = reads((home / f"{page}.ipynb").read_text(encoding="utf-8"))
        if not any(c.cell_type == "code" and "%pip" in c.source for c in nb.cells):
            continue  # imports neither the library nor the framework
        wanted = first_cell(nb)
        executed_path = book / "_build" / "eval" / framework / f"{page}.ipynb"
        executed = reads(executed_path.read_text(encoding="utf-8"))
        pins = [w for w in wanted if "==" in w and "://" not in w]
        if needs_gpu(nb):  # its pins are CUDA builds: a CPU host keeps the platform's
            assert on_the_index(pins)  # but they are there
            kept = [w for w in wanted if "://" in w]
        else:  # the framework as the platform holds it under another name is left to it
            kept = [w for w in wanted if w not in platform_pins(framework, book, pins)]
        if kept != wanted:
            wanted = kept
            cell = next(c for c in nb.cells if c.cell_type == "code")
            cell.source = "%pip install -q " + shlex.join(wanted)
            (home / f"{page}.ipynb").write_text(writes(nb), encoding="utf-8")
        if python is None:
            python = platform_venv(tmp / "venv", framework, book)
            pip = [str(python), "-m", "pip", "install", "-q", *wanted]
            environ = student_environ(python)
            done = subprocess.run(pip, capture_output=True, text=True, check=False, env=environ)
            assert done.returncode == 0, done.stdout + done.stderr
        ran = run(home / f"{page}.ipynb", python, (home / page).parent, tmp / "kernels")
        problems += [f"{page}: {e}" for e in errors_outside_gpu_cells(ran, executed)]
    assert python is not None
    probe = "import d2l, json; print(json.dumps([d2l.__file__]))"
    probing = [str(python), "-c", probe]
    environ = student_environ(python)
    done = subprocess.run(probing, capture_output=True, text=True, cwd=tmp, check=True, env=environ)
    (where,) = json.loads(done.stdout)
    assert where.startswith(str(tmp / "venv")), where  # the wheel the site served
    return problems


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_colab_notebooks_install_the_books_library_from_the_site_and_run(
    served: Path, framework: str, tmp_path: Path
) -> None:
    (wheel,) = (served / "_build" / "dist").glob("*.whl")
    nb = reads((served / "_build/notebooks" / framework / "colab" / f"{PAGE}.ipynb").read_text())
    url = first_cell(nb)[0]
    assert url.endswith(f"/_dist/{wheel.name}") and url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(url) as answer:  # the site serves the wheel built here
        assert answer.read() == wheel.read_bytes()
    assert student_run(served, framework, "colab", tmp_path) == []


def test_a_sagemaker_notebook_does_the_same(served: Path, tmp_path: Path) -> None:
    frameworks = FRAMEWORKS if ALL else ("pytorch",)
    for framework in frameworks:
        assert student_run(served, framework, "sagemaker", tmp_path / framework) == []
