"""What ``_freeze/`` entries may name, read as the checks read it: which files are entries,
which images an entry names, and the line each refused name is reported at."""

from __future__ import annotations

import json
from pathlib import Path

from polybook.diagnostics import Reporter
from polybook.source.frozen import (
    check_frozen,
    entry_files,
    entry_images,
    refused_images,
    report_refused,
)

DIGEST = "ab" * 32
GOOD = f"files/{DIGEST}.png"


def _output(name: object) -> dict[str, object]:
    return {"output_type": "display_data", "data": {"image/png": {"file": name}}}


def test_the_entries_are_the_json_files_below_a_framework_folder(tmp_path: Path) -> None:
    folder = tmp_path / "_freeze"
    for name in ("top.json", "files/x.json", "files/a/y.json", "pytorch/a.json"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("{}")
    for name in ("pytorch/chap/b.json", "pytorch/files/c.json", "jax/d.txt"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("{}")
    found = [p.relative_to(folder).as_posix() for p in entry_files(folder)]
    assert found == ["pytorch/a.json", "pytorch/chap/b.json", "pytorch/files/c.json"]


def test_an_entry_names_the_files_of_its_image_outputs_only() -> None:
    entry = {
        "cells": [
            {"outputs": [_output(GOOD), _output("files/b.svg")]},
            {"outputs": [{"output_type": "stream", "text": "files/c.png"}]},
            {"outputs": [{"data": {"text/plain": "files/d.png", "image/png": "inline"}}]},
            {"code": "no outputs"},
        ]
    }
    assert entry_images(entry) == {GOOD, "files/b.svg"}
    assert entry_images({}) == set()
    assert entry_images({"cells": [{"outputs": [{"output_type": "error"}]}]}) == set()


def test_each_refused_name_is_reported_at_the_first_line_that_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "book" / "_freeze"
    (folder / "files").mkdir(parents=True)
    (folder / GOOD).write_text("an image")
    entry = {"cells": [{"outputs": [_output("x.png"), _output(GOOD), _output("x.png")]}]}
    path = folder / "pytorch" / "page.json"
    path.parent.mkdir()
    text = "\n" + json.dumps(entry, indent=1) + "\n"  # the first line blank
    path.write_text(text)
    first = next(i for i, line in enumerate(text.split("\n"), 1) if '"x.png"' in line)
    assert first > 2
    assert refused_images(folder, path) == [(first, "x.png")]
    escaped = json.dumps(entry).replace("x.png", "x\\u002epng")  # not found as written: 0
    path.write_text(escaped)
    assert refused_images(folder, path) == [(0, "x.png")]
    reporter = Reporter(quiet=True)
    path.write_text(text)
    check_frozen(tmp_path / "book", reporter)
    (said,) = reporter.errors
    assert str(said) == (
        f"_freeze/pytorch/page.json:{first}: a frozen image names 'x.png', which is not a file"
        " of _freeze/files/: an entry may name only the images `polybook freeze` stored there"
        " [polybook.source.outside]"
    )
    assert said.severity == "error"
    assert report_refused(folder, path, Reporter(quiet=True))  # whether any was refused
    path.write_text(json.dumps({"cells": [{"outputs": [_output(GOOD)]}]}))
    assert not report_refused(folder, path, Reporter(quiet=True))


def test_an_entry_that_cannot_be_read_names_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "_freeze"
    (folder / "pytorch").mkdir(parents=True)
    broken = folder / "pytorch" / "page.json"
    broken.write_text('{"cells": [')
    assert refused_images(folder, broken) == []
    assert refused_images(folder, folder / "pytorch" / "none.json") == []
    broken.write_bytes(b'{"cells": "\xff"}')  # not UTF-8
    assert refused_images(folder, broken) == []
