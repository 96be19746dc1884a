"""A build with errors never replaces good outputs with worse ones.

Errors in the sources or the library stop the build before anything runs or renders, so the
last good site and library stay byte for byte; a page whose notebook fails keeps its last
good HTML and is reported as stale, while the other pages are updated."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from polybook.commands.cli import main

pytestmark = pytest.mark.slow

CELL = "```{{.python .input}}\n{code}\n```\n"


def write_page(root: Path, name: str, prose: str, code: str) -> None:
    (root / f"{name}.md").write_text(f"# {name}\n\n{prose}\n\n" + CELL.format(code=code))


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def book(tmp_path: Path) -> Path:
    root = tmp_path / "book"
    root.mkdir()
    (root / "config.ini").write_text("[build]\ntabs = pytorch\njobs = 2\n")
    (root / "index.md").write_text("# Book\n\n```toc\nlib\nuse\n```\n")
    write_page(root, "lib", "The library.", "def double(x):  #@save\n    return 2 * x")
    write_page(root, "use", "First prose.", "from d2l import torch as d2l\nprint(d2l.double(21))")
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    return root


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


def test_a_failing_notebook_keeps_its_pages_last_good_html_and_the_rest_is_updated(
    book: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    use_html = (book / "_build" / "html" / "use.html").read_bytes()
    assert b"42" in use_html
    write_page(book, "use", "Second prose.", "raise ValueError('broken')")
    write_page(book, "lib", "The library, edited.", "def double(x):  #@save\n    return 2 * x")
    assert main(["--quiet", "--root", str(book), "build", "html"]) == 1
    assert "use.md:6 [pytorch] cell 1: ValueError: broken [polybook.exec]" in (
        capsys.readouterr().err
    )
    assert any("use.md: page kept from the last good build" in m for m in caplog.messages)
    assert (book / "_build" / "html" / "use.html").read_bytes() == use_html
    assert b"The library, edited." in (book / "_build" / "html" / "lib.html").read_bytes()
    write_page(book, "use", "Third prose.", "print('fixed')")
    assert main(["--quiet", "--root", str(book), "build", "html"]) == 0
    fixed = (book / "_build" / "html" / "use.html").read_text()
    assert "Third prose." in fixed and "fixed" in fixed
