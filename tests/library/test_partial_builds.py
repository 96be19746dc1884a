"""A build of part of the book takes the code earlier chapters save from the committed
library, and writes the library a full build would write."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import LIB_FILES, REPO, copy_shipped

CHAPTER = "chapter_builders-guide"


def only(root: Path, *pages: str) -> None:
    """Set ``[build] notebooks`` of the book at ``root`` to ``pages`` (and the tocs)."""
    config = root / "config.ini"
    chosen = " ".join(["index.md", f"{CHAPTER}/index.md", *(f"{CHAPTER}/{p}" for p in pages)])
    text = re.sub(r"(?m)^notebooks = .*$", f"notebooks = {chosen}", config.read_text())
    config.write_text(text)


@pytest.mark.parametrize("pages", [("use-gpu.md",), ("toolkit.md",), ("parameters.md",)])
def test_a_partial_build_writes_the_library_a_full_build_writes(
    tmp_path: Path, pages: tuple[str, ...]
) -> None:
    root = copy_shipped(tmp_path / "book")
    only(root, *pages)
    # use-gpu.md attaches methods to Trainer, which toolkit.md (outside the build) saves.
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    for lib_file in sorted(LIB_FILES):
        assert (root / lib_file).read_text() == (REPO / lib_file).read_text(), lib_file


def test_a_partial_build_of_a_changed_chapter_keeps_the_rest_of_the_library(
    tmp_path: Path,
) -> None:
    root = copy_shipped(tmp_path / "book")
    only(root, "use-gpu.md")
    page = root / CHAPTER / "use-gpu.md"
    page.write_text(
        page.read_text().replace(
            "def prepare_batch(self, batch):", "def prepare_batch(self, batch, again=True):", 1
        )
    )
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    text = (root / "d2l/torch.py").read_text()
    assert "def prepare_batch(self, batch, again=True):" in text
    assert text.count("class Trainer(") == 1 and "def try_gpu(" in text  # toolkit.md's code


def test_a_library_without_comments_or_labels_is_taken_whole_before_the_chapters_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_shipped(tmp_path / "book")
    for lib_file in LIB_FILES:  # as a library without polybook's comments reads
        text = (root / lib_file).read_text()
        (root / lib_file).write_text(re.sub(r"(?m)^ *# \S+\.md:\d+\n", "", text))
    only(root, "use-gpu.md")
    main(["--quiet", "--root", str(root), "check"])
    found = [line for line in capsys.readouterr().err.splitlines() if "[polybook." in line]
    assert found and all("[polybook.toc]" in x or "[polybook.ref.missing]" in x for x in found)
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    text = (root / "d2l/torch.py").read_text()
    assert text.index("class Trainer(") < text.index("# chapter_builders-guide/use-gpu.md:")
