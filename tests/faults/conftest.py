"""The fault modules' book: a library page and a page that uses it, built once (its site
and library are the last good ones a fault must leave)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.commands.cli import main

from .builds import write_page


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
