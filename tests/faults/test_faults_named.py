"""Faults named precisely: a dead kernel's exit code or signal, a lost worker's cause, page
and cell, a page the book does not have, a cell whose output is too long (cut, with a note
of how much and where the whole is), an SVG output that carries a script, and a wheel whose
``Requires-Python`` must agree with its pins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from nbformat import NotebookNode

from polybook.commands.cli import main
from polybook.diagnostics import Reporter
from polybook.nb import new_code_cell, new_notebook, node
from polybook.render.outputs import clean_notebook
from polybook.render.svg import sanitize_svg

from ..books import cells_book, pages_book

SCRIPTED_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
    ' width="20" height="20" onload="alert(1)">'
    "<script>alert(2)</script>"
    "<style>rect { fill: red }</style><style>@import url(https://example.com/x.css);</style>"
    '<rect width="20" height="20" onclick="alert(3)" style="stroke: blue"/>'
    '<a xlink:href="javascript:alert(4)"><circle r="2"/></a>'
    '<use href="#r"/><image href="https://example.com/t.png"/>'
    '<set attributeName="onmouseover" to="alert(5)"/>'
    "<foreignObject><div xmlns='http://www.w3.org/1999/xhtml'>x</div></foreignObject>"
    "</svg>"
)


def test_an_svg_keeps_its_drawing_and_loses_what_runs_or_reaches_out() -> None:
    clean = sanitize_svg(SCRIPTED_SVG)
    assert clean is not None
    for gone in ("alert", "script", "onload", "onclick", "foreignObject", "@import", "example"):
        assert gone not in clean, gone
    for kept in ("<rect", 'style="stroke: blue"', "rect { fill: red }", 'href="#r"', "<circle"):
        assert kept in clean, kept
    assert sanitize_svg("<svg><unclosed></svg>") is None
    laughs = '<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>'
    assert sanitize_svg(laughs) is None
    assert sanitize_svg("<html><script/></html>") is None  # not an SVG


def _stream(text: str) -> NotebookNode:
    return node({"output_type": "stream", "name": "stdout", "text": text})


def _notebook(*outputs: NotebookNode) -> NotebookNode:
    nb = new_notebook()
    cell = new_code_cell("print(...)", "c1")
    cell.metadata["polybook"] = {"line": 7}
    cell.outputs = list(outputs)
    nb.cells.append(cell)
    return nb


def test_a_cells_text_is_cut_to_the_limit_with_a_note_of_how_much_and_where_the_rest_is() -> None:
    html = node(
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {"text/html": "<b>" + "h" * 600 + "</b>", "text/plain": "p" * 600},
        }
    )
    nb = _notebook(_stream("line\n" * 100), html, _stream("tail\n" * 100))
    reporter = Reporter()
    whole = "_build/eval/pytorch/c/page.ipynb"
    cleaned = clean_notebook(nb, [], "c/page.md", "pytorch", reporter, 800, whole)
    outputs = cleaned.cells[0].outputs
    assert outputs[0].text == "line\n" * 100  # 500 characters: all of it
    assert "text/html" not in outputs[1].data  # HTML cannot be cut: it goes
    assert outputs[1].data["text/plain"] == "p" * 300  # the rest of the room
    assert outputs[2].text.startswith("[output cut: 0.0 MB of this cell's 0.0 MB")
    assert f"the whole output is in {whole}]" in outputs[2].text
    assert len(outputs) == 3  # the last stream had no room left
    assert [str(d) for d in reporter.warnings] == [
        "c/page.md:7 [pytorch] cell 1: output cut: 0.0 MB of this cell's 0.0 MB of output text"
        f" not shown; the whole output is in {whole} [polybook.render.output_cut]"
    ]
    assert nb.cells[0].outputs[2].text == "tail\n" * 100  # the notebook given is untouched
    untouched = clean_notebook(nb, [], "c/page.md", "pytorch", Reporter(), 0, whole)
    assert untouched.cells[0].outputs == nb.cells[0].outputs  # 0: no limit


def test_a_page_the_book_does_not_have_is_an_error_not_a_silent_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = pages_book(tmp_path / "book", {"page": "Words.\n"}, folder="chapter")
    (root / "notes.txt").write_text("not a page")
    monkeypatch.chdir(root)  # pages are named from where the command runs
    names = ["chapter/missing.md", "notes.txt", str(tmp_path), "chapter/page.md"]
    assert main(["--quiet", "--root", str(root), "build", "html", *names]) == 1
    err = capsys.readouterr().err
    why = "the pages are the files [build] notebooks names, less exclusions [polybook.cli]"
    assert f"polybook: chapter/missing.md: no such file: {why}" in err
    assert f"polybook: notes.txt: not a page of the book: {why}" in err
    assert f"polybook: {tmp_path}: not inside the book [polybook.cli]" in err
    assert "chapter/page.md" not in err
    assert not (root / "_build" / "html").exists()


LOUD = "import sys\nfor n in range(200_000):\n    sys.stdout.write('x' * 99 + '\\n')"
SVG_CELL = f"from IPython.display import SVG, display\ndisplay(SVG({SCRIPTED_SVG!r}))"
FAULTS = {
    "exits": "import os\nos._exit(3)",
    "killed": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    "lost": "print('before')\n\n```\n\n```{.python .input}\nimport os, signal\n"
    "os.kill(os.getppid(), signal.SIGKILL)",
    "loud": LOUD,
    "drawn": SVG_CELL,
}


@pytest.mark.slow
def test_kernel_and_worker_deaths_name_their_cause_and_long_outputs_are_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = cells_book(tmp_path / "book", FAULTS)
    config = root / "config.ini"  # kernels started by their worker: their parent is it
    config.write_text(config.read_text(encoding="utf-8") + "fork_kernels = false\n")
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 1
    err = capsys.readouterr().err
    assert "exits.md:4 [pytorch] cell 1: DeadKernelError: the kernel died: exit code 3" in err
    assert (
        "killed.md:4 [pytorch] cell 1: DeadKernelError: the kernel died: killed by signal 9"
        " (SIGKILL): the system may have run out of memory [polybook.exec]"
    ) in err
    assert (
        "lost.md:9 [pytorch] cell 2: the worker process running the notebook was lost: killed"
        " by signal 9 (SIGKILL)"
    ) in err
    assert "[polybook.exec.worker]" in err
    # 20 MB of text made a page of about 1 MB, with the note; the whole is in _build/eval.
    page = root / "_build" / "html" / "loud.html"
    assert page.stat().st_size < 1_500_000
    html = page.read_text()
    assert "[output cut: 19.0 MB of this cell's 20.0 MB of output text not shown" in html
    assert "the whole output is in _build/eval/pytorch/loud.ipynb" in html
    executed = json.loads((root / "_build" / "eval" / "pytorch" / "loud.ipynb").read_text())
    (cell,) = (c for c in executed["cells"] if c["cell_type"] == "code")
    assert sum(len("".join(o["text"])) for o in cell["outputs"]) == 20_000_000
    download = root / "_build" / "html" / "_notebooks" / "pytorch" / "loud.ipynb"
    assert download.stat().st_size < 1_500_000
    # The SVG output: an image of the page, and a file that runs nothing when opened.
    drawn = (root / "_build" / "html" / "drawn.html").read_text()
    (svg,) = (root / "_build" / "html" / "_images").glob("*.svg")
    images = BeautifulSoup(drawn, "html.parser").select(".pb-output img")
    assert [i["src"] for i in images] == [f"_images/{svg.name}"]
    assert "<rect" in svg.read_text() and "alert" not in svg.read_text()
