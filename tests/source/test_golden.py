"""Parse, split and library stages against golden files in ``fixtures/cases``.

Each case is ``NAME.md`` (input) beside ``NAME.golden`` (the expected parse tree, notebooks
per framework, libraries per framework, and expected errors, in one readable file).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from nbformat import NotebookNode

from polybook.config.declarations import shipped
from polybook.diagnostics import PolybookError, Reporter
from polybook.library.compose import library_text
from polybook.library.extract import check_blocks, check_redefinitions
from polybook.library.saves import extract_blocks
from polybook.render.page import render_page
from polybook.source.book import decode_page
from polybook.source.model import CodeCell, Document, Toc
from polybook.source.parse import parse
from polybook.source.split import split

from ..golden import check_golden, ci_refusal

CASES = Path(__file__).parents[1] / "fixtures" / "cases"
TABS = ("pytorch", "mxnet", "jax", "tensorflow")


def _show_document(doc: Document) -> list[str]:
    out = []
    for block in doc.blocks:
        kind = type(block).__name__
        tabs = getattr(block, "frameworks", ())
        head = f"{kind} L{block.line}" + (f" [{', '.join(tabs)}]" if tabs else "")
        if isinstance(block, Toc):
            body = f"options={block.options!r} entries={block.entries!r}"
            body += f" lines={block.entry_lines!r}"
        else:
            body = block.source if isinstance(block, CodeCell) else block.text
        out.append(f"{head}: {body!r}")
        for mark in getattr(block, "marks", ()):
            kind = ("[" if mark.new_slide else "(") + ("**" if mark.in_book else "~~")
            place = f" paragraph {mark.paragraph}" + (f" item {mark.item!r}" if mark.item else "")
            out.append(f"  slide mark {kind} L{mark.line}{place}: {mark.text!r}")
    return out


def _show_notebook(nb: NotebookNode) -> list[str]:
    out = []
    for cell in nb.cells:
        meta = cell.metadata.get("polybook", {})
        head = f"-- {cell.cell_type} {cell.id} L{meta.get('line')}"
        if cell.cell_type == "code":
            head += f" map={meta['source_map']}"
            if cell.metadata.get("tags"):
                head += f" tags={cell.metadata['tags']}"
            if "requires" in meta:
                head += f" requires={meta['requires']}"
        out.extend([head, cell.source])
    return out


def render_case(path: Path) -> str:
    """Everything the first three stages make of one input, or the error they raise."""
    rel = f"cases/{path.name}"
    lines: list[str] = []
    reporter = Reporter()
    try:
        # Bytes as stored: CRLF, a BOM or bad bytes reach the reader as they would in a book.
        doc = parse(decode_page(path.read_bytes(), rel, reporter), rel, TABS)
        for warning in doc.warnings:
            reporter.warn(warning.location, warning.message, warning.subtype)
        lines += ["== parse", *_show_document(doc)]
        notebooks = {fw: split(doc, shipped(fw), TABS) for fw in TABS}
        for fw, nb in notebooks.items():
            lines += [f"== split {fw}", *_show_notebook(nb)]
        libraries = {}
        for fw, nb in notebooks.items():
            libraries[fw] = extract_blocks([(rel, nb)], fw)
            check_blocks(libraries[fw], fw)
            lines += [f"== library {fw}", library_text(libraries[fw], fw)]
        check_redefinitions(libraries, reporter)
        page = render_page(doc, notebooks, TABS, reporter)
        lines += ["== myst", page.text.strip("\n"), "== cells", json.dumps(page.cells, indent=1)]
        lines += ["== warnings", *(str(d) for d in reporter.diagnostics)]
    except PolybookError as err:
        lines += ["== error", str(err)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", sorted(CASES.glob("*.md")), ids=lambda p: p.stem)
def test_case(case: Path) -> None:
    check_golden(case.with_suffix(".golden"), render_case(case))


def test_error_cases_fail_and_others_do_not() -> None:
    for case in sorted(CASES.glob("*.md")):
        has_error = "== error" in render_case(case)
        assert has_error == case.stem.startswith("err_"), case.name


def test_ci_never_rewrites_golden_files() -> None:
    """``POLYBOOK_UPDATE_GOLDEN`` set under CI (``.ci/run`` sets ``CI=true``) fails the run:
    there the golden files are compared, never rewritten."""
    refusal = ci_refusal(os.environ)
    assert refusal == "", refusal
    assert ci_refusal({"CI": "true", "POLYBOOK_UPDATE_GOLDEN": "1"}).startswith(
        "$POLYBOOK_UPDATE_GOLDEN is set under CI (CI=true): CI compares the golden files"
    )
    assert ci_refusal({"CI": "1", "POLYBOOK_UPDATE_GOLDEN": "yes"})
    for local in ({"POLYBOOK_UPDATE_GOLDEN": "1"}, {"CI": "false", "POLYBOOK_UPDATE_GOLDEN": "1"}):
        assert ci_refusal(local) == ""  # a local run rewrites them
    assert ci_refusal({"CI": "true"}) == ""
