"""The Sphinx process ``polybook serve`` keeps answers an edit before it writes what the
page does not need (its environment, the search index), writes them once told (or when
it ends), writes the edited page's parent only where what the parent shows of the page
changed, copies the static files again only where they changed, and takes the search index
from its last build rather than reading it back from its file."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.make_book import write_book
from polybook.commands.cli import main
from polybook.render.sphinx.process import WarmSphinx
from polybook.site.math_draw import last_run
from polybook.site.math_speech import spoken
from polybook.site.settings import site_digest

pytestmark = pytest.mark.slow

PAGE = "chapter_preliminaries/section-01"
PARENT = "chapter_preliminaries/index"


def _stamps(build: Path) -> dict[str, int]:
    files = {
        "env": build / "doctrees" / "environment.pickle",
        "search": build / "html" / "searchindex.js",
        "page": build / "html" / f"{PAGE}.html",
        "parent": build / "html" / f"{PARENT}.html",
        "style": build / "html" / "_static" / "polybook-layout.css",  # copied, made lean
    }
    return {name: path.stat().st_mtime_ns for name, path in files.items()}


def _edit(build: Path, old: str, new: str) -> None:
    """The page as the build hands it to Sphinx, edited (what a save of the page makes)."""
    source = build / "site_src" / f"{PAGE}.md"
    text = source.read_text(encoding="utf-8")
    assert old in text
    source.write_text(text.replace(old, new, 1), encoding="utf-8")


def _title(build: Path) -> str:
    text = (build / "site_src" / f"{PAGE}.md").read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith("# "))


def test_an_edit_is_answered_before_the_environment_and_the_index_are_written(
    tmp_path: Path,
) -> None:
    root = tmp_path / "book"
    write_book(root, 12)
    (root / "static").mkdir(exist_ok=True)
    (root / "static" / "book.css").write_text("p { color: black; }\n", encoding="utf-8")
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    build = root / "_build"
    sphinx = WarmSphinx.start(build / "sphinx-html.json", site_digest())
    assert sphinx is not None
    try:
        _edit(build, "The ", "Warmed ")  # its first build numbers the book, as Sphinx does
        assert sphinx.run() == ""
        before = _stamps(build)
        _edit(build, "The ", "Zyxwvut ")  # prose: nothing else of the page changed
        assert sphinx.run() == ""
        after = _stamps(build)
        page = (build / "html" / f"{PAGE}.html").read_text(encoding="utf-8")
        assert "Zyxwvut " in page
        assert "polybook-search.js" not in page  # the search page's scripts, its own
        assert after["page"] != before["page"]
        assert (after["parent"], after["style"]) == (before["parent"], before["style"])
        assert after["env"] < after["page"]  # the environment: not written since
        assert "zyxwvut" not in _index(build)  # nor the search index
        sphinx.write_late()  # the rest, once told (serve tells it once the page is out)
        title = _title(build)
        _edit(build, title, title + " renamed")  # what its chapter's page shows of it
        assert sphinx.run() == ""
        renamed = _stamps(build)
        assert renamed["parent"] != after["parent"] and renamed["style"] == after["style"]
        parent = (build / "html" / f"{PARENT}.html").read_text(encoding="utf-8")
        assert parent.count(" renamed") == 4  # its toctree, navigation, links to the next
        assert "zyxwvut" in _index(build)  # the last edit's, written since
        sphinx.write_late()
        _wait_for(lambda: "renam" in _index(build))  # written half a second after
        docnames = _index_data(build)["docnames"]
        # The index is taken from the last build, not read back from its file: a word
        # planted in the file for another page does not come back.
        _plant(build, "plantedword", docnames)
        _edit(build, "Zyxwvut ", "Qwertyuiop ")
        assert sphinx.run() == ""
        sphinx.write_late()
        _restyle_and_add_a_formula(root, sphinx)
    finally:
        sphinx.stop()  # waits for what it deferred
    ended = _stamps(build)
    assert ended["env"] > ended["page"]
    assert "renam" in _index(build)  # the new title, searchable
    index = _index_data(build)
    terms = {term.lower() for term, pages in index["terms"].items() if pages != []}
    assert {t for t in terms if t.startswith(("qwert", "zyx", "asdf"))} == {"asdfghjkl"}, terms
    assert "plantedword" not in terms
    assert index["docnames"] == docnames  # every other page's entries kept


def _formula_edit(build: Path, sphinx: WarmSphinx) -> None:
    """A new formula on the edited page is drawn; the kept process looks at the formulas of
    the page it read again, not at every page's (each page of the book has one)."""
    _edit(build, "Asdfghjkl ", "Asdfghjkl $q_{42}^{7}$ ")
    assert sphinx.run() == ""
    page = (build / "html" / f"{PAGE}.html").read_text(encoding="utf-8")
    assert f'aria-label="{spoken("q_{42}^{7}")}"><svg' in page
    assert last_run(build / "cache" / "math")["formulas"] <= 3  # the page's own, not 12+
    sphinx.write_late()


def _restyle_and_add_a_formula(root: Path, sphinx: WarmSphinx) -> None:
    _restyle(root, sphinx)
    _formula_edit(root / "_build", sphinx)


def _restyle(root: Path, sphinx: WarmSphinx) -> None:
    """The book's style sheet changed: copied again, and named by its new checksum (Sphinx
    keeps each file's checksum for its process's life)."""
    build = root / "_build"
    style = "p { color: navy; }\n"
    (root / "static" / "book.css").write_text(style, encoding="utf-8")
    _edit(build, "Qwertyuiop ", "Asdfghjkl ")
    assert sphinx.run() == ""
    page = (build / "html" / f"{PAGE}.html").read_text(encoding="utf-8")
    assert f"book.css?v={zlib.crc32(style.encode()):08x}" in page
    sphinx.write_late()


def _index(build: Path) -> str:
    return (build / "html" / "searchindex.js").read_text(encoding="utf-8").lower()


def _index_data(build: Path) -> dict[str, Any]:
    text = (build / "html" / "searchindex.js").read_text(encoding="utf-8")
    found: dict[str, Any] = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    return found


def _wait_for(condition: Callable[[], bool], seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "not written"
        time.sleep(0.05)


def _plant(build: Path, word: str, docnames: list[str]) -> None:
    """``word`` put into the search index's file for a page of another chapter."""
    index_file = build / "html" / "searchindex.js"
    text = index_file.read_text(encoding="utf-8")
    other = next(
        i
        for i, name in enumerate(docnames)
        if name.startswith("chapter_") and not name.startswith("chapter_preliminaries")
    )
    planted = text.replace('"terms":{', f'"terms":{{"{word}":{other},', 1)
    assert planted != text
    index_file.write_text(planted, encoding="utf-8")
