"""The Sphinx process ``polybook serve`` keeps looks for the book's pages again only where
a file came or went: an edit is built without the walk, a page added is found."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.make_book import write_book
from polybook.commands.cli import main
from polybook.render.sphinx.listing import SKIPPED, folders, unchanged
from polybook.render.sphinx.process import WarmSphinx
from polybook.site.settings import site_digest

PAGE = "chapter_preliminaries/section-01"


def _log(build: Path) -> str:
    return (build / "sphinx-html.log").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_edit_is_built_without_the_walk_and_a_new_page_is_found(tmp_path: Path) -> None:
    root = tmp_path / "book"
    write_book(root, 8)
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    build = root / "_build"
    source = build / "site_src" / f"{PAGE}.md"
    sphinx = WarmSphinx.start(build / "sphinx-html.json", site_digest())
    assert sphinx is not None
    try:
        for word in ("Warmed", "Zyxwvut"):  # the first run walks; the next need not
            source.write_text(source.read_text().replace("The ", f"{word} ", 1))
            assert sphinx.run() == ""
        assert SKIPPED in _log(build)
        assert "Zyxwvut" in (build / "html" / f"{PAGE}.html").read_text(encoding="utf-8")
        added = source.with_name("added-page.md")
        added.write_text("---\norphan: true\n---\n# An added page\n\nQwertyuiop.\n")
        assert sphinx.run() == ""
        assert SKIPPED not in _log(build)
        written = build / "html" / "chapter_preliminaries" / "added-page.html"
        assert "Qwertyuiop" in written.read_text(encoding="utf-8")
    finally:
        sphinx.stop()


def test_a_folder_holds_the_same_names_though_a_file_was_written_again(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "page.md").write_text("one")
    kept = folders(tmp_path)
    assert set(kept) == {str(tmp_path), str(tmp_path / "a")}
    renamed = tmp_path / "a" / ".page.md.tmp"
    renamed.write_text("two")
    renamed.replace(tmp_path / "a" / "page.md")  # a write by rename: the folder's time moves
    assert unchanged(kept)
    (tmp_path / "a" / "b").mkdir()
    assert not unchanged(kept)
    assert unchanged(folders(tmp_path))
    (tmp_path / "a" / "page.md").unlink()
    kept = folders(tmp_path)
    (tmp_path / "a" / "other.md").write_text("three")
    assert not unchanged(kept)
