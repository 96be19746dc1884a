"""Notebooks, typed (nbformat ships no annotations): the boundary type between stages.

Cells are built as plain nodes and a notebook is validated once, after it is complete;
reading and writing skip nbformat's per-call validation (what we write was validated).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # imported where used: nbformat takes a while to import (its validator)
    from nbformat import NotebookNode

Notebooks = dict[str, list[tuple[str, "NotebookNode"]]]  # framework -> [(page, notebook)]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """Terminal colour codes removed (tracebacks, progress bars)."""
    return ANSI.sub("", text)


def _node(data: dict[str, Any]) -> NotebookNode:
    import nbformat

    return cast("NotebookNode", nbformat.from_dict(data))  # type: ignore[no-untyped-call]


def node(items: dict[str, Any]) -> NotebookNode:
    """``items`` as a node, values kept as they are: new nodes are built directly, as
    nbformat's ``from_dict`` would leave them (it walks every value)."""
    from nbformat import NotebookNode

    return NotebookNode(items)  # type: ignore[no-untyped-call]


def copy_notebook(nb: NotebookNode) -> NotebookNode:
    """A deep copy of ``nb`` (a notebook, or one of its nodes: an output, a cell's metadata):
    nbformat's ``from_dict`` makes new nodes and lists all the way down (a third of
    ``copy.deepcopy``'s time on a notebook)."""
    return _node(nb)


def new_notebook() -> NotebookNode:
    return node({"nbformat": 4, "nbformat_minor": 5, "metadata": node({}), "cells": []})


def new_code_cell(source: str, cell_id: str) -> NotebookNode:
    return node(
        {
            "cell_type": "code",
            "id": cell_id,
            "metadata": node({}),
            "source": source,
            "execution_count": None,
            "outputs": [],
        }
    )


def new_markdown_cell(source: str, cell_id: str) -> NotebookNode:
    metadata = node({})
    return node({"cell_type": "markdown", "id": cell_id, "metadata": metadata, "source": source})


def merge_streams(outputs: list[NotebookNode]) -> list[NotebookNode]:
    """Join each run of stream outputs to one stream: how often a kernel flushes is timing,
    not content (a front end shows the run as one block either way)."""
    merged: list[NotebookNode] = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (
            last is not None
            and output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            last["text"] = last["text"] + output["text"]
        else:
            merged.append(output)
    return merged


def reads(text: str) -> NotebookNode:
    """A notebook from JSON text (nbformat 4; multi-line strings joined)."""
    data = json.loads(text)
    for cell in data.get("cells", []):
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        for out in cell.get("outputs", []):
            if isinstance(out.get("text"), list):
                out["text"] = "".join(out["text"])
            for mime, value in out.get("data", {}).items():
                if isinstance(value, list):
                    out["data"][mime] = "".join(value)
    return _node(data)


def writes(nb: NotebookNode) -> str:
    """JSON text as nbformat writes it (sorted keys, one-space indent)."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def validate(nb: NotebookNode) -> None:
    import nbformat

    nbformat.validate(cast(Any, nb))
