"""What the shipped book's site offers a reader who wants to run its notebooks (the
``shipped_site`` fixture): the downloaded notebooks install the book's library and the
framework in their first cell (run here in a fresh venv, from the wheel the site holds),
the "Run the notebooks" page with the book's own wheel and pins, and no notebook offered
for a page without code."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from nbformat import NotebookNode

from polybook.nb import reads

from .test_students_site import platform_venv, student_environ

pytestmark = pytest.mark.slow
FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
PAGE = "chapter_builders-guide/custom-layer"


def _html(site: Path) -> Path:
    return site / "_build" / "html"


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _download(site: Path, framework: str, page: str = PAGE) -> NotebookNode:
    """The notebook the page's "Download" link of ``framework`` gives."""
    doc = _html(site) / f"{page}.html"
    (link,) = _soup(doc).select(f'.pb-downloads a.pb-download[data-pb-follow="{framework}"]')
    return reads((doc.parent / str(link["href"])).read_text(encoding="utf-8"))


def _install_args(nb: NotebookNode) -> list[str]:
    """The arguments of the install cell's ``%pip install`` lines, in order."""
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.id == "polybook-install"]
    assert nb.cells.index(cell) == 1 and nb.cells[0].source.startswith("# ")  # under the title
    lines = [line for line in cell.source.splitlines() if line.startswith("%pip install -q ")]
    return [a for line in lines for a in shlex.split(line.removeprefix("%pip install -q "))]


def test_a_downloaded_notebooks_install_cell_installs_the_library_in_a_fresh_venv(
    shipped_site: Path, tmp_path: Path
) -> None:
    (wheel,) = (_html(shipped_site) / "_dist").glob("*.whl")
    for fw in FRAMEWORKS:
        args = _install_args(_download(shipped_site, fw))
        assert args[0] == "d2l==0.1.0" and len(args) > 1  # the library, then its framework
    args = _install_args(_download(shipped_site, "pytorch"))
    assert args == ["d2l==0.1.0", "torch==2.13.0"]
    # The library from the wheel the site publishes, the framework as the platform holds it.
    local = [str(wheel) if a.startswith("d2l==") else a for a in args]
    python = platform_venv(tmp_path / "venv", "pytorch", shipped_site)
    # No network: the wheel and the pins as they are here (the pins the platform holds).
    pip = [str(python), "-m", "pip", "install", "-q", "--no-index", "--no-deps", *local]
    environ = student_environ(python)
    done = subprocess.run(pip, capture_output=True, text=True, check=False, env=environ)
    assert done.returncode == 0, done.stdout + done.stderr
    probe = "import json; from d2l import torch as d2l; print(json.dumps(d2l.__file__))"
    done = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=True, env=environ,
        cwd=tmp_path,
    )  # fmt: skip
    assert json.loads(done.stdout).startswith(str(tmp_path / "venv"))


def test_the_run_page_gives_the_books_wheel_and_pins_and_each_platform(
    shipped_site: Path,
) -> None:
    html = _html(shipped_site)
    page = html / "run-the-notebooks.html"
    soup = _soup(page)
    nav = [str(a["href"]) for a in _soup(html / "index.html").select(".sidebar-tree a")]
    assert "run-the-notebooks.html" in nav  # the navigation links it
    (link,) = soup.select("article a.pb-wheel")
    (wheel,) = (html / "_dist").glob("*.whl")
    assert (page.parent / str(link["href"])).resolve() == wheel.resolve()
    text = soup.select_one("article").get_text()  # type: ignore[union-attr]
    for fw in FRAMEWORKS:
        pins = _install_args(_download(shipped_site, fw))[1:]
        assert f"pip install {wheel.name} {' '.join(pins)}" in text, fw
    headings = [h.get_text().rstrip("¶") for h in soup.select("article h2")]
    for place in ("On your own machine", "Colab", "SageMaker Studio Lab", "Kaggle"):
        assert place in headings
    assert "python3 -m venv" in text and "jupyter notebook" in text


def test_no_notebook_is_offered_for_a_page_without_code(shipped_site: Path) -> None:
    html = _html(shipped_site)
    for page in ("index", "chapter_builders-guide/index"):
        assert _soup(html / f"{page}.html").select(".pb-download") == [], page
        assert not (html / "_notebooks" / "pytorch" / f"{page}.ipynb").exists()
    shown = _soup(html / f"{PAGE}.html").select(".pb-download")
    assert [a["data-pb-follow"] for a in shown] == list(FRAMEWORKS)
