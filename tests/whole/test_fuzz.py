"""Books generated from the grammar of d2l sources (``tests/grammar.py``,
``tests/grammar_files.py``), built: each run succeeds or reports located errors and exits 1,
never a traceback, a write outside ``_build/`` or a hang (``tests/fuzzing.py``). Each kind is
fuzzed (the loaded profile's examples) after its saved failing examples are replayed."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from polybook.authoring.pages import PageError, to_notebook, to_page

from ..fuzzing import check_build, code_key, fuzzed, write
from ..grammar import Book, markdown_books, page
from ..grammar_files import (
    FREEZE_PAGE,
    MATCHING,
    config_books,
    edition_books,
    freeze_books,
    notebook_books,
    saved_notebook,
)


def check_pages(book: Book) -> None:
    check_build(book, "check")


def lib_pages(book: Book) -> None:
    check_build(book, "build", "lib")


def check_config(book: Book) -> None:
    check_build(book, "check")
    check_build(book, "build", "lib")


def check_editions(book: Book) -> None:
    check_build(book, "check")
    check_build(book, "editions", "status")


@functools.cache
def freeze_code() -> str:
    """The code key of the freeze books' page (``FREEZE_PAGE``), as a build makes it."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as temp:
        root = Path(temp)
        write(Book({"config.ini": "[build]\ntabs = pytorch\n", "p.md": FREEZE_PAGE}), root)
        return code_key(root, "p.md")


def _matching(root: Path) -> Any:
    def fill(rel: str, content: str | bytes) -> str | bytes:
        if isinstance(content, str) and rel.startswith("_freeze/"):
            return content.replace(json.dumps(MATCHING), json.dumps(freeze_code()))
        return content

    return fill


def check_freeze(book: Book) -> None:
    check_build(book, "check", fill=_matching)
    check_build(book, "build", "eval", "--executor", "none", fill=_matching)


def check_notebooks(book: Book) -> None:
    check_build(book, "check")
    check_build(book, "build", "lib")


def round_trip(raw: str) -> None:
    """A page opens as a notebook that writes back the same bytes, or is refused."""
    try:
        nb = to_notebook(raw)
    except PageError:
        return
    assert to_page(nb) == raw


def saves_back(saved: dict[str, Any]) -> None:
    """A notebook as Jupyter saves it writes a page, or is refused (PageError)."""
    nb = nbformat.from_dict(saved)  # type: ignore[no-untyped-call]
    try:
        text = to_page(nb)
    except PageError:
        return
    assert isinstance(text, str)


def html_pages(book: Book) -> None:
    book.files["config.ini"] = str(book.files["config.ini"]) + "eval_notebook = false\n"
    check_build(book, "build", "html", in_process=False)


test_check = fuzzed(markdown_books())(check_pages)
test_lib = fuzzed(markdown_books())(lib_pages)
test_config = fuzzed(config_books())(check_config)
test_editions = fuzzed(edition_books(), scale=10)(check_editions)
test_freeze = fuzzed(freeze_books())(check_freeze)
test_notebooks = fuzzed(notebook_books())(check_notebooks)
test_page_round_trip = fuzzed(page())(round_trip)
test_saved_notebook = fuzzed(saved_notebook())(saves_back)
test_html = pytest.mark.slow(fuzzed(markdown_books(), scale=100)(html_pages))
