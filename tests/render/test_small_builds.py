"""What a build of an edited page skips, and what it still does when the edit moves things:
figure numbers kept unless a page's numbered structure changed, the page listing an edited
page written again only when its title or headings changed, static files copied only when
they changed, a page's site sources written again only when the page changed (or its files
on disk did)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..books import FENCE, build, write_book

pytestmark = pytest.mark.slow

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082"
)
INDEX = f"# Book\n\n{FENCE}toc\n:numbered:\n\none\ntwo\n{FENCE}\n"
ONE = "# One\n\nSome prose.\n\n![A dot.](img/dot.png)\n:label:`fig_dot`\n\n## Part\n\nMore prose.\n"
TWO = "# Two\n\n![Another dot.](img/dot.png)\n:label:`fig_other`\n\nSee :numref:`fig_dot`.\n"


@pytest.fixture
def book(tmp_path: Path) -> Path:
    root = write_book(tmp_path / "book", {"index.md": INDEX, "one.md": ONE, "two.md": TWO})
    (root / "img").mkdir()
    (root / "img" / "dot.png").write_bytes(PNG)
    (root / "static").mkdir()
    (root / "static" / "extra.css").write_text("p { margin: 0; }\n", encoding="utf-8")
    config = (root / "config.ini").read_text(encoding="utf-8")
    (root / "config.ini").write_text(config + "eval_notebook = False\n", encoding="utf-8")
    assert build(root, "html") == 0
    return root


def log(root: Path) -> str:
    return (root / "_build" / "sphinx-html.log").read_text(encoding="utf-8")


def html(root: Path, page: str) -> str:
    return (root / "_build" / "html" / f"{page}.html").read_text(encoding="utf-8")


def figures(page: str) -> list[str]:
    return re.findall(r'caption-number">Fig\. ([\d.]+)', page)


def edit(root: Path, page: str, old: str, new: str) -> None:
    path = root / f"{page}.md"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def test_a_prose_edit_keeps_the_numbers_and_writes_the_edited_page_alone(book: Path) -> None:
    index = book / "_build" / "html" / "index.html"
    before = index.stat().st_mtime_ns
    edit(book, "one", "Some prose.", "Other prose.")
    assert build(book, "html") == 0
    assert "numbers kept: no page's numbered structure changed" in log(book)
    assert "listing pages not rewritten for: one" in log(book)
    assert "Other prose." in html(book, "one")
    assert figures(html(book, "one")) == ["1.1"] and figures(html(book, "two")) == ["2.1"]
    assert index.stat().st_mtime_ns == before  # the toc page shows nothing that changed


def test_a_new_figure_is_numbered_and_a_new_title_is_listed(book: Path) -> None:
    edit(book, "one", "Some prose.", "![First.](img/dot.png)\n:label:`fig_first`\n\nProse.")
    assert build(book, "html") == 0
    assert "numbers assigned" in log(book)
    assert figures(html(book, "one")) == ["1.1", "1.2"]
    edit(book, "one", "# One", "# Renamed")
    assert build(book, "html") == 0
    assert "listing pages not rewritten" not in log(book)
    assert "Renamed" in html(book, "index")  # the toc page lists the new title
    edit(book, "one", "## Part", "## Part\n\n### Below")
    assert build(book, "html") == 0
    assert "numbers assigned" in log(book)  # a heading may move numbers


def test_static_files_are_copied_when_one_changed(book: Path) -> None:
    published = book / "_build" / "html" / "_static" / "extra.css"
    edit(book, "one", "Some prose.", "Other prose.")
    assert build(book, "html") == 0
    assert "static files unchanged: not copied" in log(book)
    (book / "static" / "extra.css").write_text("p { margin: 1px; }\n", encoding="utf-8")
    edit(book, "one", "Other prose.", "Third prose.")
    assert build(book, "html") == 0
    assert "static files unchanged" not in log(book)
    assert "1px" in published.read_text(encoding="utf-8")
