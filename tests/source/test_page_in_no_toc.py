"""A page no toc lists is said once, by polybook at the page, not again by Sphinx."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..books import write_book
from ..render.test_sphinx_failures import CONFIG, INDEX, build_said


@pytest.mark.slow
def test_a_page_in_no_toc_is_said_once(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    files = {"index.md": INDEX, "chap/page.md": "# Page\n\nText.\n", "demo.md": "# Demo\n"}
    root = write_book(tmp_path / "book", files, CONFIG)
    status, said = build_said(root, capfd)
    assert status == 0 and "site written" in said
    assert said.count("demo.md: page is in no toc [polybook.toc]") == 1
    assert [line for line in said.splitlines() if "demo" in line and "toc" in line] == [
        "demo.md: page is in no toc [polybook.toc]"
    ]
    assert (root / "_build" / "html" / "demo.html").is_file()  # still built, as Sphinx does
