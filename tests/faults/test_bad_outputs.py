"""Outputs a page cannot show as they are: an SVG that carries a script or reaches out
keeps its drawing alone; a cell's text beyond ``[build] output_limit`` is cut, with a note
of how much and where the whole is."""

from __future__ import annotations

from nbformat import NotebookNode

from polybook.diagnostics import Reporter
from polybook.nb import new_code_cell, new_notebook, node
from polybook.render.outputs import clean_notebook
from polybook.render.svg import sanitize_svg

from .builds import SCRIPTED_SVG


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
