"""An edit extracts the saved code of its own page again, not the book's: an unchanged
page's notebook (the very object the last build was given) keeps its blocks."""

from __future__ import annotations

from nbformat import NotebookNode

from polybook.library.saves import extract_blocks
from polybook.nb import new_code_cell, new_markdown_cell, new_notebook


def _page(body: str) -> NotebookNode:
    nb = new_notebook()
    nb.cells += [new_markdown_cell("Prose.", "a"), new_code_cell(body, "b")]
    return nb


def test_an_unchanged_notebook_keeps_its_blocks_and_a_new_one_is_read() -> None:
    first = _page("def f():  #@save\n    return 1")
    second = _page("def g():  #@save\n    return 2")
    before = extract_blocks([("a.md", first), ("b.md", second)], "pytorch")
    edited = _page("def g():  #@save\n    return 3")  # the page saved again: a new notebook
    after = extract_blocks([("a.md", first), ("b.md", edited)], "pytorch")
    assert [block.code for block in after] == ["def f():\n    return 1", "def g():\n    return 3"]
    assert after[0] is before[0]  # kept
    assert after[1] is not before[1]
    moved = extract_blocks([("b.md", edited), ("a.md", first)], "pytorch")  # pages reordered
    assert [(block.path, block.notebook) for block in moved] == [("b.md", 0), ("a.md", 1)]
    assert extract_blocks([("a.md", first)], "jax")[0] is not before[0]  # per framework
