"""A committed outputs store (``outputs/<framework>/<page>.json``, schema 1) read as frozen
outputs: a cell whose id and code fingerprint match shows the stored outputs; a stale one
shows none (one warning); an image that is a Git LFS pointer is a note, never an image;
nothing outside the book is read; a manifest that is not JSON is a located error."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from polybook.diagnostics import Reporter
from polybook.execution.outputs_store import OutputsStore, fill_all

from ..books import build, chapter_book, libraries

FENCE = "```"
PAGE = (
    f"# Store\n\n{FENCE}{{.python .input #store-setup}}\n%%tab pytorch\n\nx = 6 * 7  #@save\n"
    f"{FENCE}\n\n{FENCE}{{.python .input #store-print}}\nprint(x)   \n{FENCE}\n"
)
# The store's fingerprint of each cell, worked out by hand: the normalized code of the cell
# and of those before it (the blank line after the tab line kept, `#@save` and trailing
# blanks gone), each followed by a NUL byte.
SETUP = hashlib.sha256(b"\nx = 6 * 7\0")
PRINT = SETUP.copy()
PRINT.update(b"print(x)\0")
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082"
)
LFS = b"version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 6954\n"


def manifest(setup: str, image: str = "page/store-print-1.png") -> dict[str, Any]:
    return {
        "schema": 1,
        "source": "chap/page.md",
        "framework": "pytorch",
        "provenance": {"framework_version": "torch==2.11.0"},
        "cells": {
            "store-setup": {"code_fingerprint": setup, "kind": "text", "outputs": []},
            "store-print": {
                "code_fingerprint": "sha256:" + PRINT.hexdigest(),
                "kind": "mixed",
                "outputs": [
                    {"type": "stream", "name": "stdout", "text": "42\n"},
                    {"type": "display_data", "mime": "image/png", "asset": image},
                ],
            },
        },
    }


def store_book(
    root: Path,
    entry: dict[str, Any] | str,
    image: bytes = PNG,
    page: str = PAGE,
    names: tuple[str, ...] = ("page",),
) -> Path:
    """A book whose pages ``names`` all read ``page``, each with the manifest ``entry``."""
    chapter_book(root, dict.fromkeys(names, page), build="eval_notebook = False\n")
    folder = root / "outputs/pytorch/chap"
    text = entry if isinstance(entry, str) else json.dumps(entry, indent=2)
    for name in names:
        (folder / "page").mkdir(parents=True, exist_ok=True)
        (folder / "page/store-print-1.png").write_bytes(image)
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    return root


def filled(root: Path) -> tuple[dict[str, Any], Reporter]:
    reporter = Reporter(quiet=True)
    notebooks, _ = libraries(root, reporter)
    split = {(page, fw): nb for fw, nbs in notebooks.items() for page, nb in nbs}
    fill_all(OutputsStore(root, notebooks), split, reporter)
    cells = {c.id: c for c in split[("chap/page.md", "pytorch")].cells if c.cell_type == "code"}
    return cells, reporter


def test_matching_cells_show_the_stored_outputs(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()))
    cells, reporter = filled(root)
    outputs = cells["store-print"].outputs
    assert outputs[0].text == "42\n"
    assert outputs[1].data["image/png"] == base64.b64encode(PNG).decode()
    assert not reporter.diagnostics


def test_stale_cells_show_nothing_and_are_warned_of_once(tmp_path: Path) -> None:
    edited = PAGE.replace("6 * 7", "7 * 7")
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()), page=edited)
    cells, reporter = filled(root)
    assert cells["store-print"].outputs == []  # the code before it changed: stale too
    (warning,) = reporter.warnings
    assert warning.subtype == "store.stale"
    assert str(warning.location) == "chap/page.md:8 [pytorch]"  # the first stale cell
    assert "for 2 cells are stale" in warning.message


def test_a_git_lfs_pointer_is_a_note_not_an_image(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()), image=LFS)
    cells, reporter = filled(root)
    note = cells["store-print"].outputs[1]
    assert "image/png" not in note.data
    assert "Git LFS file not fetched: run git lfs pull" in note.data["text/plain"]
    (warning,) = reporter.warnings
    assert warning.subtype == "store.lfs" and warning.location.line > 0


def test_pointers_of_many_pages_are_one_warning_for_the_book(tmp_path: Path) -> None:
    names = ("page", "second", "third")
    entry = manifest("sha256:" + SETUP.hexdigest())
    root = store_book(tmp_path / "book", entry, image=LFS, names=names)
    reporter = Reporter(quiet=True)
    notebooks, _ = libraries(root, reporter)
    split = {(page, fw): nb for fw, nbs in notebooks.items() for page, nb in nbs}
    assert fill_all(OutputsStore(root, notebooks), split, reporter) == 3
    (warning,) = [w for w in reporter.warnings if w.subtype.startswith("store")]
    assert str(warning.location) == "outputs/pytorch/chap/page.json:26"  # the first's asset
    assert "(3 images are pointer files: in this manifest and 2 others)" in warning.message


@pytest.mark.parametrize("name", ["../../../../secret.png", "/etc/passwd.png", "page/../../x.png"])
def test_an_asset_outside_the_book_is_an_error_at_its_line(tmp_path: Path, name: str) -> None:
    (tmp_path / "secret.png").write_bytes(PNG)
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest(), image=name))
    cells, reporter = filled(root)
    (error,) = reporter.errors
    assert error.subtype == "store" and "outside the book" in error.message
    assert str(error.location) == "outputs/pytorch/chap/page.json:26"  # its "asset" line
    assert cells["store-print"].outputs == []


def test_a_manifest_that_is_not_json_is_a_located_error(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", '{\n  "schema": 1,\n  "cells": {,\n}\n')
    cells, reporter = filled(root)
    (error,) = reporter.errors
    assert str(error) == (
        "outputs/pytorch/chap/page.json:3: not JSON: Expecting property name enclosed in"
        " double quotes [polybook.store]"
    )
    assert cells["store-print"].outputs == []


@pytest.mark.slow
def test_a_build_without_execution_shows_the_store_with_its_provenance(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()), image=LFS)
    assert build(root, "html") == 0
    page = (root / "_build/html/chap/page.html").read_text(encoding="utf-8")
    text = BeautifulSoup(page, "html.parser").get_text()
    assert "42" in text
    assert "Git LFS file not fetched: run git lfs pull" in text
    assert "output stored in outputs/pytorch/chap/page.json (torch==2.11.0)" in text


@pytest.mark.slow
def test_fingerprints_are_of_the_code_as_written_not_as_aliases_rewrite_it(tmp_path: Path) -> None:
    page = f"{FENCE}{{.python .input #alias-ones}}\nd2l.ones(2)\n{FENCE}\n"
    aliases = "\n[library-pytorch]\nlib_name = torch\nsimple_alias = ones\n"
    root = chapter_book(tmp_path / "book", {"page": page}, "eval_notebook = False\n", aliases)
    fingerprint = "sha256:" + hashlib.sha256(b"d2l.ones(2)\0").hexdigest()
    outputs = [{"type": "execute_result", "text": "tensor([1., 1.])"}]
    entry = {
        "schema": 1,
        "cells": {"alias-ones": {"code_fingerprint": fingerprint, "outputs": outputs}},
    }
    (root / "outputs/pytorch/chap").mkdir(parents=True)
    (root / "outputs/pytorch/chap/page.json").write_text(json.dumps(entry), encoding="utf-8")
    assert build(root, "html") == 0
    page_html = (root / "_build/html/chap/page.html").read_text(encoding="utf-8")
    text = BeautifulSoup(page_html, "html.parser").get_text()
    assert "torch.ones(2)" in text and "tensor([1., 1.])" in text


@pytest.mark.slow
def test_with_nothing_run_here_a_covered_notebook_comes_from_the_store(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()))
    config = root / "config.ini"
    config.write_text(config.read_text().replace("eval_notebook = False", ""), encoding="utf-8")
    assert build(root, "html", "--executor", "none") == 0  # no "not executed" error
    page = (root / "_build/html/chap/page.html").read_text(encoding="utf-8")
    assert "42" in BeautifulSoup(page, "html.parser").get_text()


def test_a_manifest_linked_from_outside_the_book_is_not_read(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()))
    outside = tmp_path / "elsewhere.json"
    (root / "outputs/pytorch/chap/page.json").rename(outside)
    (root / "outputs/pytorch/chap/page.json").symlink_to(outside)
    cells, reporter = filled(root)
    (error,) = reporter.errors
    assert "outside the book" in error.message and cells["store-print"].outputs == []


def test_a_missing_image_is_warned_of_and_the_rest_shown(tmp_path: Path) -> None:
    root = store_book(tmp_path / "book", manifest("sha256:" + SETUP.hexdigest()))
    (root / "outputs/pytorch/chap/page/store-print-1.png").unlink()
    cells, reporter = filled(root)
    assert [o.text for o in cells["store-print"].outputs] == ["42\n"]
    (warning,) = reporter.warnings
    assert str(warning.location) == "outputs/pytorch/chap/page.json:26"
    assert "is missing" in warning.message and not reporter.errors


def test_a_cell_id_too_long_for_a_notebook_still_names_its_stored_outputs(tmp_path: Path) -> None:
    name = "store-" + "long-" * 13 + "id"  # 73 characters: nbformat's ids hold at most 64
    page = f"{FENCE}{{.python .input #{name} n=2}}\nprint(1)\n{FENCE}\n"
    fingerprint = "sha256:" + hashlib.sha256(b"print(1)\0").hexdigest()
    outputs = [{"type": "stream", "name": "stdout", "text": "1\n"}]
    entry = {"schema": 1, "cells": {name: {"code_fingerprint": fingerprint, "outputs": outputs}}}
    chapter_book(tmp_path / "book", {"page": page})
    store_file = tmp_path / "book/outputs/pytorch/chap/page.json"
    store_file.parent.mkdir(parents=True)
    store_file.write_text(json.dumps(entry), encoding="utf-8")
    cells, reporter = filled(tmp_path / "book")
    (cell,) = cells.values()
    assert cell.id != name and [o.text for o in cell.outputs] == ["1\n"]
    assert not reporter.diagnostics
