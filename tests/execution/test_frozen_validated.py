"""An entry of ``_freeze/`` is validated once while its file is unchanged (``polybook serve``
builds again in one process), and again as soon as the file changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from polybook.execution.frozen_outputs import FrozenOutputs


def entry(output: dict[str, Any]) -> dict[str, Any]:
    return {"page": "p.md", "framework": "pytorch", "cells": [{"outputs": [output]}]}


STREAM = {"output_type": "stream", "name": "stdout", "text": "1\n"}
BROKEN = {"output_type": "stream", "text": "1\n"}  # a stream names its stream


def test_an_entry_is_judged_again_when_its_file_changes(tmp_path: Path) -> None:
    frozen = FrozenOutputs(tmp_path)
    path = frozen.entry_path("p.md", "pytorch")
    path.parent.mkdir(parents=True)
    for held, valid in ((BROKEN, False), (STREAM, True), ({**BROKEN, "text": "22\n"}, False)):
        path.write_text(json.dumps(entry(held)), encoding="utf-8")
        said = frozen._invalid(path, entry(held))
        assert (said == "") is valid, said
        assert frozen._invalid(path, entry(held)) == said  # the same file: the same answer


def test_a_second_look_at_an_unchanged_entry_does_not_validate_it_again(tmp_path: Path) -> None:
    frozen = FrozenOutputs(tmp_path)
    path = frozen.entry_path("p.md", "pytorch")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(entry(STREAM)), encoding="utf-8")
    assert frozen._invalid(path, entry(STREAM)) == ""
    # What the file held when first judged stands for it while it is unchanged.
    assert frozen._invalid(path, entry(BROKEN)) == ""


def test_an_entry_is_read_as_a_notebook_once_and_stays_as_read(tmp_path: Path) -> None:
    """A kept entry (one file read once while unchanged) becomes one notebook, kept too; its
    images are read into the notebook, not into the entry."""
    frozen = FrozenOutputs(tmp_path)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'
    name = f"files/{hashlib.sha256(svg.encode()).hexdigest()}.svg"
    (frozen.folder / "files").mkdir(parents=True)
    (frozen.folder / name).write_text(svg, encoding="utf-8")
    drawn = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/svg+xml": {"file": name}},
    }
    held = entry(drawn)
    as_read = json.dumps(held, sort_keys=True)
    nb = frozen.as_notebook(held)
    assert nb.cells[0].outputs[0]["data"]["image/svg+xml"] == svg
    assert json.dumps(held, sort_keys=True) == as_read  # still names its file
    assert frozen.as_notebook(held) is nb  # the same entry: the same notebook
    assert frozen.as_notebook(json.loads(as_read)) is not nb  # another entry read
