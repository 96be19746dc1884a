"""Typed access to nbformat (which ships no annotations): the notebook is our boundary type."""

from __future__ import annotations

from typing import Any, cast

import nbformat
from nbformat import NotebookNode
from nbformat import v4 as _v4


def new_notebook() -> NotebookNode:
    return cast(NotebookNode, _v4.new_notebook())  # type: ignore[no-untyped-call]


def new_code_cell(source: str, cell_id: str) -> NotebookNode:
    return cast(NotebookNode, _v4.new_code_cell(source, id=cell_id))  # type: ignore[no-untyped-call]


def new_markdown_cell(source: str, cell_id: str) -> NotebookNode:
    return cast(NotebookNode, _v4.new_markdown_cell(source, id=cell_id))  # type: ignore[no-untyped-call]


def reads(text: str) -> NotebookNode:
    return cast(NotebookNode, nbformat.reads(text, as_version=4))  # type: ignore[no-untyped-call]


def writes(nb: NotebookNode) -> str:
    return cast(str, nbformat.writes(nb))  # type: ignore[no-untyped-call]


def validate(nb: NotebookNode) -> None:
    nbformat.validate(cast(Any, nb))
