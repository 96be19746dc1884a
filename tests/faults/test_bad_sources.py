"""Bad sources: saved code that does not parse stops the build before anything runs or
renders, so that the last good site and library stay byte for byte; a page the book does
not have is an error, not a silent success."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import pages_book
from .builds import digests, write_page


@pytest.mark.slow
def test_an_error_in_saved_code_keeps_the_last_good_site_and_library(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site, library = digests(book / "_build" / "html"), digests(book / "d2l")
    write_page(book, "lib", "The library, edited.", "def double(x):  #@save\n    return 2 *")
    assert main(["--quiet", "--root", str(book), "build", "html"]) == 1
    err = capsys.readouterr().err
    assert "lib.md:7 [pytorch]: cannot parse a cell with #@save: invalid syntax" in err
    assert digests(book / "_build" / "html") == site
    assert digests(book / "d2l") == library


def test_a_page_the_book_does_not_have_is_an_error_not_a_silent_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = pages_book(tmp_path / "book", {"page": "Words.\n"}, folder="chapter")
    (root / "notes.txt").write_text("not a page")
    monkeypatch.chdir(root)  # pages are named from where the command runs
    names = ["chapter/missing.md", "notes.txt", str(tmp_path), "chapter/page.md"]
    assert main(["--quiet", "--root", str(root), "build", "html", *names]) == 1
    err = capsys.readouterr().err
    why = "the pages are the files [build] notebooks names, less exclusions [polybook.cli]"
    assert f"polybook: chapter/missing.md: no such file: {why}" in err
    assert f"polybook: notes.txt: not a page of the book: {why}" in err
    assert f"polybook: {tmp_path}: not inside the book [polybook.cli]" in err
    assert "chapter/page.md" not in err
    assert not (root / "_build" / "html").exists()
