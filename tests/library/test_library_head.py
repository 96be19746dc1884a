"""The head of a library is the author's: what a ``lib_file`` holds above d2lbook's banner is
kept byte for byte at the top of every library made from it (d2l-en's ``DATA_HUB``,
``DATA_URL``, imports and ``nn_Module``), and a file without a banner that holds code no page
saves is a located error, not a silent overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..books import build, chapter_book, code, evaluate, ran

HEAD = (
    "DATA_HUB = dict()\n"
    "DATA_URL = 'http://data.example/'\n"
    "\n"
    "import collections\n"
    "\n"
    "Counter_ = collections.Counter  # an alias the pages' code uses\n"
    "\n"
)
BANNER = (
    "#################   WARNING   ################\n"
    "# The below part is generated automatically through:\n"
    "#    d2lbook build lib\n"
    "# Don't edit it directly\n"
    "\n"
)
# Saved code that runs when the library is imported, reading the head (d2l-en's appendix).
DATA = code(
    "from d2l import torch as d2l",
    "",
    "d2l.DATA_HUB['fra-eng'] = (d2l.DATA_URL + 'fra-eng.zip', '94646ad1')  #@save",
    "",
    "def letters(word):  #@save",
    "    return Counter_(word)",
)
USE = code(
    "from d2l import torch as d2l",
    "print(d2l.DATA_HUB['fra-eng'][0], d2l.letters('aab')['a'])",
)
PAGES = {"data": DATA, "use": USE}


def headed_book(root: Path, notebooks: str = "") -> Path:
    """A book whose committed ``d2l/torch.py`` has a head written by hand above d2lbook's
    banner, and a stale generated part below it."""
    build = f"notebooks = {notebooks}\n" if notebooks else ""
    chapter_book(root, PAGES, build)
    (root / "d2l").mkdir()
    (root / "d2l/torch.py").write_text(HEAD + BANNER + "def stale():\n    pass\n")
    return root


def printed(root: Path, page: str) -> list[str]:
    nb = json.loads((root / "_build/eval/pytorch" / page.replace(".md", ".ipynb")).read_text())
    return [o["text"].strip() for c in nb["cells"] for o in c.get("outputs", []) if "text" in o]


@pytest.mark.slow
def test_every_page_of_a_whole_book_imports_the_library_with_its_head(tmp_path: Path) -> None:
    root = headed_book(tmp_path / "book")
    assert ran(evaluate(root)) == {"chap/data.md", "chap/use.md"}
    assert printed(root, "chap/use.md") == ["http://data.example/fra-eng.zip 2"]
    snapshots = list((root / "_build").rglob("lib/pytorch/*/d2l/torch.py"))
    assert snapshots and all(s.read_text().startswith(HEAD + BANNER) for s in snapshots)


def test_build_lib_keeps_the_head_byte_for_byte(tmp_path: Path) -> None:
    root = headed_book(tmp_path / "book")
    assert build(root, "lib") == 0
    text = (root / "d2l/torch.py").read_text()
    assert text.startswith(HEAD + BANNER)
    assert "def stale" not in text and text.count("DATA_HUB = dict()") == 1
    assert "d2l.DATA_HUB['fra-eng']" in text
    written = text
    assert build(root, "lib") == 0  # and again: the head once, the file unchanged
    assert (root / "d2l/torch.py").read_text() == written


BANNER_LINE = BANNER.split("\n", 1)[0]
# Heads as editors leave them (the file's banner in the same line endings), each kept as is.
HEADS = {
    "crlf": (HEAD + BANNER).replace("\n", "\r\n"),
    "cr": (HEAD + BANNER).replace("\n", "\r"),
    "trailing spaces": HEAD.replace("\n", "  \n").replace("dict()", "dict()\t") + BANNER,
    "bom": "\ufeff" + HEAD + BANNER,
    "bom, no head": "\ufeff" + BANNER,
    "mixed": HEAD.replace("\n", "\r\n", 2) + BANNER,
}


@pytest.mark.parametrize("kept", HEADS.values(), ids=HEADS.keys())
def test_a_head_is_kept_byte_for_byte_whatever_its_line_endings(tmp_path: Path, kept: str) -> None:
    root = headed_book(tmp_path / "book")
    (root / "d2l/torch.py").write_bytes((kept + "def stale():\n    pass\n").encode())
    assert build(root, "lib") == 0
    written = (root / "d2l/torch.py").read_bytes()
    assert written.startswith(kept.encode()) and b"def stale" not in written
    compile(written, "torch.py", "exec")
    assert build(root, "lib") == 0  # and again: the file unchanged
    assert (root / "d2l/torch.py").read_bytes() == written


def test_a_banner_on_the_files_last_line_keeps_the_head_and_a_line_of_its_own(
    tmp_path: Path,
) -> None:
    root = headed_book(tmp_path / "book")
    for ending in ("\n", "\r\n"):
        kept = (HEAD + BANNER_LINE).replace("\n", ending)  # no newline at the end of the file
        (root / "d2l/torch.py").write_bytes(kept.encode())
        assert build(root, "lib") == 0
        written = (root / "d2l/torch.py").read_bytes()
        assert written.startswith((kept + ending).encode())
        assert b"d2l.DATA_HUB['fra-eng']" in written
        compile(written, "torch.py", "exec")


def test_a_partial_build_writes_the_library_the_whole_book_writes(tmp_path: Path) -> None:
    whole = headed_book(tmp_path / "whole")
    assert build(whole, "lib") == 0
    part = headed_book(tmp_path / "part", "index.md chap/use.md")
    (part / "d2l/torch.py").write_bytes((whole / "d2l/torch.py").read_bytes())
    assert build(part, "lib") == 0
    text = (part / "d2l/torch.py").read_text()
    assert text == (whole / "d2l/torch.py").read_text()
    assert text.startswith(HEAD + BANNER) and text.count("DATA_HUB = dict()") == 1


def test_a_file_without_banner_holding_unsaved_code_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = chapter_book(tmp_path / "book", PAGES)
    (root / "d2l").mkdir()
    written = "def letters(word):\n    return word\n\n\n\nDATA_URL = 'http://x/'\n"
    (root / "d2l/torch.py").write_text(written)
    assert build(root, "lib") != 0
    err = capsys.readouterr().err
    assert "d2l/torch.py:6" in err and "DATA_URL = 'http://x/'" in err
    assert "Traceback" not in err
    assert (root / "d2l/torch.py").read_text() == written  # untouched


def test_a_file_without_banner_holding_only_saved_code_is_rewritten(tmp_path: Path) -> None:
    root = chapter_book(tmp_path / "book", PAGES)
    (root / "d2l").mkdir()
    (root / "d2l/torch.py").write_text("def letters(word):\n    return word\n")
    assert build(root, "lib") == 0
    assert "return Counter_(word)" in (root / "d2l/torch.py").read_text()


def _unsaved(tmp_path: Path, written: str, *saved: str) -> tuple[int, str] | None:
    """Where check_library_file stops on a file without banner holding ``written``, the
    pages saving ``saved``: the line and the message, or None where it accepts the file."""
    from polybook.diagnostics import PolybookError
    from polybook.library.head import check_library_file
    from polybook.library.model import SavedBlock

    (tmp_path / "torch.py").write_text(written)
    blocks = [SavedBlock("p.md", (1,), code, 0) for code in saved]
    try:
        check_library_file(tmp_path / "torch.py", "d2l/torch.py", blocks)
    except PolybookError as error:
        return error.location.line, str(error)
    return None


def test_a_file_without_banner_that_does_not_parse_is_an_error_at_its_line(
    tmp_path: Path,
) -> None:
    found = _unsaved(tmp_path, "import os\nx = (", "import os")
    assert found is not None and found[0] == 2 and "`x = (` is in no page's #@save" in found[1]
    found = _unsaved(tmp_path, "import os\n\nx = (\ny = 1\n", "import os")
    assert found is not None and found[0] == 3 and "`x = (`" in found[1]


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"], ids=["CR", "CRLF", "LF"])
def test_the_code_named_is_the_lines_whatever_its_line_endings(tmp_path: Path, end: str) -> None:
    for unsaved in ("DATA = 1", "x = ("):  # unsaved code, a syntax error
        found = _unsaved(tmp_path, end.join(["import os", unsaved, ""]), "import os")
        assert found is not None and found[0] == 2 and f"`{unsaved}` is in" in found[1]


@pytest.mark.parametrize("head", ["", "A = 1\r\n", "A = 1\n"], ids=["alone", "CRLF", "LF"])
def test_a_banner_ending_the_file_gets_the_line_ending_of_the_file(
    tmp_path: Path, head: str
) -> None:
    from polybook.library.head import BANNER as LINE
    from polybook.library.head import library_module

    (tmp_path / "torch.py").write_text(head + LINE)
    written = library_module(tmp_path / "torch.py", [], "pytorch")
    assert written.startswith(head + LINE + (head[-2:] if head.endswith("\r\n") else "\n"))
