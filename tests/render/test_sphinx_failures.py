"""Images without a caption, and exceptions raised inside Sphinx, MyST or docutils.

An image alone in its paragraph with no caption is a figure without one, in every output.
An exception raised while a page is read or written (in Sphinx's main process or in one of
its writer processes) is a located error at that page's Markdown line, with the exception's
one-line message: no traceback, no "site written", and the build fails.
"""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main
from polybook.render.sphinx import process

from ..books import build, pages_book, write_book

CONFIG = "[project]\nname = f\ntitle = F\n[build]\ntabs = pytorch\neval_notebook = false\n"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8"/></svg>'
INDEX = "# F\n\n```toc\n:maxdepth: 1\n\nchap/page\n```\n"
UNCAPTIONED = "# Page\n\nText.\n\n![](../img/x.svg)\n\nMiddle.\n\n![](../img/x.svg){width=86%}\n"
# A directive of the author's that docutils cannot run: a figure whose content is empty.
EMPTY_FIGURE = "# Page\n\nText.\n\n```{figure} ../img/x.svg\n\n\n```\n\nEnd.\n"

# A Sphinx extension of the test: its directive's node cannot be written as HTML. Where it
# is written, it notes its process and that process's parent.
FAILING = """
import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class failing(nodes.Element):
    pass


def visit(translator, node):
    with open(os.environ["PB_FAIL_MARK"], "w") as mark:
        mark.write(f"{os.getpid()} {os.getppid()}")
    raise ValueError(f"cannot draw {node['what']}")


class FailOnWrite(SphinxDirective):
    required_arguments = 1

    def run(self):
        node = failing(what=self.arguments[0])
        self.set_source_info(node)
        return [node]


def setup(app):
    app.add_node(failing, html=(visit, None))
    app.add_directive("fail-on-write", FailOnWrite)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
"""


def build_said(root: Path, capfd: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Build the site (not quiet: it says when the site is written); its status, and what
    it said (its log, and what reached the terminal otherwise)."""
    polybook, level = logging.getLogger("polybook"), logging.getLogger("polybook").level
    polybook.setLevel(logging.INFO)
    handler = logging.StreamHandler(io.StringIO())
    logging.getLogger().addHandler(handler)
    try:
        status = main(["--root", str(root), "build", "html"])
    finally:
        logging.getLogger().removeHandler(handler)
        polybook.setLevel(level)
    said = capfd.readouterr()
    return status, str(handler.stream.getvalue()) + said.out + said.err


def figure_book(root: Path, page: str) -> Path:
    files = {"index.md": INDEX, "chap/page.md": page, "img/x.svg": SVG}
    return write_book(root, files, CONFIG)


def figure_site(
    tmp_path: Path, page: str, capfd: pytest.CaptureFixture[str]
) -> tuple[Path, int, str]:
    """The site of :func:`figure_book` built: its root, the exit status, what it said."""
    root = figure_book(tmp_path / "book", page)
    return (root, *build_said(root, capfd))


def both_figures(markup: str | bytes) -> tuple[list[Any], list[Any]]:
    """The figures of :data:`UNCAPTIONED`'s page and their images, each showing x.svg."""
    figures = BeautifulSoup(markup, "html.parser").find_all("figure")
    images = [f.find("img") for f in figures]
    assert [i.get("src") if i else None for i in images] == ["../_images/x.svg"] * 2
    return list(figures), images


@pytest.mark.slow
def test_an_image_without_caption_is_a_figure_without_caption(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root, status, said = figure_site(tmp_path, UNCAPTIONED, capfd)
    assert status == 0 and "site written" in said
    html = (root / "_build" / "html" / "chap" / "page.html").read_text(encoding="utf-8")
    figures, images = both_figures(html)
    assert [f.find("figcaption") for f in figures] == [None, None]
    assert images[1].get("style") == "width: 86%;"


@pytest.mark.slow
def test_an_image_without_caption_reaches_the_epub(tmp_path: Path) -> None:
    import zipfile

    root = figure_book(tmp_path / "book", UNCAPTIONED)
    assert build(root, "epub") == 0
    with zipfile.ZipFile(root / "_build" / "epub" / "f-pytorch.epub") as epub:
        page = next(n for n in epub.namelist() if n.endswith("chap/page.xhtml"))
        both_figures(epub.read(page))


@pytest.mark.slow
def test_an_exception_while_a_page_is_read_is_an_error_at_its_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root, status, err = figure_site(tmp_path, EMPTY_FIGURE, capfd)
    assert status == 1
    assert (
        "chap/page.md:5: Sphinx failed on this page: UnboundLocalError: cannot access local"
        " variable 'i'"
    ) in err
    assert "[polybook.sphinx.exception]" in err
    assert "Traceback" not in err and "File " not in err
    assert "site written" not in err
    page = root / "_build" / "html" / "chap" / "page.html"
    assert "This page failed to build" in page.read_text(encoding="utf-8")
    status, err = build_said(root, capfd)  # still broken, and still said where
    assert status == 1 and "chap/page.md:5: Sphinx failed on this page" in err


@pytest.mark.slow
def test_an_exception_in_a_writer_process_is_an_error_at_its_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = {f"p{n:02d}": f"Words of page {n}.\n" for n in range(12)}
    pages["p07"] = "Words.\n\n```{fail-on-write} dots\n```\n\nMore words.\n"
    config = CONFIG + "sphinx_extensions = pb_fail\n"
    root = pages_book(tmp_path / "book", pages, config, folder="c")
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "pb_fail.py").write_text(FAILING)
    mark = tmp_path / "mark"
    paths = [str(tmp_path / "ext"), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    monkeypatch.setenv("PB_FAIL_MARK", str(mark))
    monkeypatch.setattr(process, "SPHINX_JOBS", 3)  # writer processes, on any machine
    status, err = build_said(root, capfd)
    assert status == 1
    _, parent = mark.read_text().split()
    assert int(parent) != os.getpid()  # written by a writer, not by Sphinx's main process
    expected = "c/p07.md:5: Sphinx failed on this page: ValueError: cannot draw dots"
    assert f"{expected} [polybook.sphinx.exception]" in err
    assert "Traceback" not in err and "site written" not in err
    assert (root / "_build" / "html" / "c" / "p08.html").is_file()  # the others are written


@pytest.mark.slow
def test_an_extension_that_fails_to_set_up_is_one_line_not_a_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = figure_book(tmp_path / "book", "# Page\n\nText.\n")
    (root / "config.ini").write_text(CONFIG + "sphinx_extensions = pb_bad_setup\n")
    (tmp_path / "ext").mkdir()
    broken = "def setup(app):\n    raise RuntimeError('setup broke')\n"
    (tmp_path / "ext" / "pb_bad_setup.py").write_text(broken)
    paths = [str(tmp_path / "ext"), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    status, err = build_said(root, capfd)
    assert status == 1
    assert "Sphinx failed to start (its traceback is in " in err
    assert "): RuntimeError: setup broke [polybook.render]" in err
    assert "Traceback" not in err and "File " not in err and "site written" not in err
