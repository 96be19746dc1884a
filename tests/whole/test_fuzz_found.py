"""The smallest inputs fuzzing found (``tests/whole/test_fuzz.py``) that crashed a build or an
author's save, each held as a test of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybook.authoring.pages import PageError, to_notebook, to_page
from polybook.library.canonical import KEY_FORMAT
from polybook.nb import reads, writes

from ..books import pages_book, write_book
from ..fuzzing import code_key, run_in_process, run_subprocess, shows_traceback

ONE_PAGE = {
    "index.md": "# Book\n\n```toc\np\n```\n",
    "p.md": "# P\n\n```{.python .input}\nx = 1\n```\n",
}


@pytest.mark.parametrize(
    "entry",
    [
        "null",
        "[]",
        '{"cells": 3}',
        '{"cells": [null]}',
        '{"run": [], "cells": []}',
        '{"cells": [{"outputs": [{"data": []}]}]}',
        '{"run": {"host_gpus": "x"}}',
    ],
)
def test_a_frozen_entry_of_another_shape_is_a_located_warning_not_a_crash(
    tmp_path: Path, entry: str
) -> None:
    root = write_book(tmp_path / "book", {**ONE_PAGE, "_freeze/pytorch/p.json": entry})
    for command in (["check"], ["build", "eval", "--executor", "none"]):
        outcome = run_in_process(root, *command)
        assert not outcome.crash, outcome.crash
        assert outcome.code == 1
        expected = "_freeze/pytorch/p.json: unreadable, not shown:"
        assert expected in outcome.output and "[polybook.freeze]" in outcome.output


@pytest.mark.parametrize(
    ("saved", "where"),
    [
        (b"\xef\xbb\xbf\n\xff", "config.ini:2: not UTF-8: byte 0xff at column 1"),
        (b"\xef\xbb\xbf[build]\ntabs = py\xe9", "config.ini:2: not UTF-8: byte 0xe9 at column 10"),
    ],
)
def test_a_config_with_a_byte_order_mark_and_a_byte_not_utf8_is_an_error_at_that_byte(
    tmp_path: Path, saved: bytes, where: str
) -> None:
    root = write_book(tmp_path / "book", {**ONE_PAGE, "config.ini": saved}, config=None)
    outcome = run_in_process(root, "check")
    assert not outcome.crash, outcome.crash
    assert outcome.code == 1
    assert where in outcome.output and "[polybook.config]" in outcome.output


def test_a_frozen_entry_whose_key_matches_and_whose_cells_do_not_is_a_warning_not_a_crash(
    tmp_path: Path,
) -> None:
    page = "# P\n\n```{.python .input}\nx = d2l.try_gpu()\n```\n"
    entry = {"key_format": KEY_FORMAT, "code": "", "run": {"device_class": "cuda"}, "cells": []}
    root = write_book(tmp_path / "book", {**ONE_PAGE, "p.md": page})
    entry["code"] = code_key(root, "p.md")
    (root / "_freeze" / "pytorch").mkdir(parents=True)
    (root / "_freeze" / "pytorch" / "p.json").write_text(json.dumps(entry), encoding="utf-8")
    outcome = run_in_process(root, "build", "eval", "--executor", "none")
    assert not outcome.crash, outcome.crash
    assert "p.json: unreadable, not shown: it holds 0 cells, the page 1" in outcome.output


@pytest.mark.parametrize("key", ["[html]\nfavicon", "[pdf]\nbibfile", "[project]\nname"])
def test_a_config_value_holding_a_nul_character_is_an_error_at_its_line(
    tmp_path: Path, key: str
) -> None:
    config = f"[build]\ntabs = pytorch\n{key} = a\x00b\n"
    root = write_book(tmp_path / "book", ONE_PAGE, config=config)
    outcome = run_in_process(root, "check")
    assert not outcome.crash, outcome.crash
    assert outcome.code == 1
    assert "config.ini:4:" in outcome.output and "NUL character" in outcome.output


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("cell", {"before": [1]}),
        ("cell", {"fence": ["~~~"]}),
        ("cell", "x"),
        ("notebook", {"newline": 3}),
        ("notebook", {"end": "x"}),
        ("notebook", []),
    ],
)
def test_a_notebook_whose_polybook_metadata_was_edited_is_refused_not_crashed_on(
    where: str, value: object
) -> None:
    nb = to_notebook("# P\n\n```{.python .input}\nx = 1\n```\n")
    holder = nb.cells[-1] if where == "cell" else nb
    holder.metadata["polybook"] = value
    saved = reads(writes(nb))  # as Jupyter saves it
    with pytest.raises(PageError, match="metadata"):
        to_page(saved)


def test_a_notebook_polybook_wrote_still_writes_back_its_page() -> None:
    page = "\ufeff# P\r\n\r\n\r\n````{.python .input}\r\n```\r\n````\r\ntext"
    assert to_page(reads(writes(to_notebook(page)))) == page


@pytest.mark.slow
def test_a_figure_without_a_caption_builds_or_is_an_error_at_its_line(tmp_path: Path) -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n'
    root = pages_book(tmp_path / "book", {"P": "![](img/x.svg)\n"})
    (root / "img").mkdir()
    (root / "img" / "x.svg").write_text(svg, encoding="utf-8")
    config = root / "config.ini"
    config.write_text(config.read_text(encoding="utf-8") + "eval_notebook = false\n")
    outcome = run_subprocess(root, "build", "html")
    assert not shows_traceback(outcome.output), outcome.output
    assert outcome.code == 0 or "P.md:3:" in outcome.output, outcome.output
