"""Sphinx's writers resolve and index their own pages (``render.sphinx.parallel_write``): the
site they write is the one Sphinx writes one page at a time, byte for byte, its search
index and copied images included. The writers' own processes tell that they wrote it (Sphinx
writes serially, silently, where an extension is not parallel-safe)."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from polybook.render.sphinx import process
from polybook.render.sphinx.parallel_write import (
    PER_PAGE,
    PER_WORD,
    _fresh_index,
    _index_parts,
    merge_index,
    shares,
)
from tests.books import build, pages_book

# A Sphinx extension of the book: each page's writer leaves its process id beside the
# doctrees, and so does Sphinx's main process when it loads the extension.
WRITERS = """
import os
from pathlib import Path


def _folder(app):
    folder = Path(app.doctreedir).parent / "pb_writers"
    folder.mkdir(exist_ok=True)
    return folder


def written(app, pagename, templatename, context, doctree):
    if doctree is not None:  # a page of the book (not the index, nor the search page)
        (_folder(app) / (pagename.replace("/", "_") + ".pid")).write_text(str(os.getpid()))


def setup(app):
    (_folder(app) / "main").write_text(str(os.getpid()))
    app.connect("html-page-context", written)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
"""
FIGURE = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4"/></svg>'


# The pages the writers record: the index and the seven pages (the generated ones beside).
PAGES = {"index", *(f"page{n}" for n in range(7))}


def _pages() -> dict[str, str]:
    pages = {
        f"page{n}": f"Words of page {n}: gradient{n} descent, :numref:`fig-{(n + 1) % 7}`.\n\n"
        f"![A figure of page {n}.](img/f{n}.svg)\n:label:`fig-{n}`\n\n$$x_{n}^2$$\n"
        for n in range(7)
    }
    pages["page6"] += "\nOnly here: zymurgy.\n"
    return pages


def _site(root: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    pages_book(root, _pages(), "[build]\ntabs = pytorch\nsphinx_extensions = pb_writers\n")
    (root / "pb_writers.py").write_text(WRITERS)
    (root / "img").mkdir()
    for n in range(7):
        (root / "img" / f"f{n}.svg").write_text(FIGURE)
    monkeypatch.setattr(process, "SPHINX_JOBS", jobs)
    assert build(root, "html") == 0
    html = root / "_build" / "html"
    return {
        str(path.relative_to(html)): path.read_bytes()
        for path in sorted(html.rglob("*"))
        if path.is_file() and path.name != ".buildinfo"
    }


def _writers(root: Path) -> tuple[int, dict[str, int]]:
    """The Sphinx process of ``root``'s site build, and the process that wrote each page."""
    [folder] = (root / "_build").rglob("pb_writers/")
    pids = {path.stem: int(path.read_text()) for path in folder.glob("*.pid")}
    return int((folder / "main").read_text()), pids


@pytest.mark.slow
def test_writers_that_resolve_their_pages_write_what_one_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial = _site(tmp_path / "serial", 1, monkeypatch)
    main, pids = _writers(tmp_path / "serial")
    assert set(pids) >= PAGES and set(pids.values()) == {main}  # every page, one process
    shutil.rmtree(tmp_path / "serial")
    parallel = _site(tmp_path / "parallel", 3, monkeypatch)
    main, pids = _writers(tmp_path / "parallel")
    # The first page is written by Sphinx's process; the others by writers forked from it.
    assert set(pids) >= PAGES and pids["index"] == main
    writers = {pid for page, pid in pids.items() if page != "index"}
    assert main not in writers and len(writers) >= 2, pids
    assert sorted(parallel) == sorted(serial)
    assert [name for name in serial if parallel[name] != serial[name]] == []
    index = parallel["searchindex.js"].decode()
    assert "zymurgi" in index and "gradient6" in index  # words of pages the writers indexed
    assert any(name.startswith("_images/f6") for name in parallel)  # an image they found


def test_a_writers_part_of_the_search_index_is_added_to_the_main_one() -> None:
    main = SimpleNamespace(
        _titles={"a": "A"},
        _filenames={"a": "a.md"},
        _all_titles={"a": [("A", "a")]},
        _index_entries={"a": []},
        _mapping={"word": {"a"}},
        _title_mapping={"a": {"a"}},
    )
    merge_index(main, {"_titles": {"b": "B"}, "_mapping": {"word": {"b"}, "new": {"b"}}})
    assert main._titles == {"a": "A", "b": "B"}
    assert main._mapping == {"word": {"a", "b"}, "new": {"b"}}
    assert main._title_mapping == {"a": {"a"}}


def test_a_writer_sends_back_only_what_it_indexed() -> None:
    writer = SimpleNamespace(**{part: {"old": {"main"}} for part in (*PER_PAGE, *PER_WORD)})
    _fresh_index(writer)  # what the main process indexed before the fork is not sent back
    writer._titles["b"], writer._mapping["word"] = "B", {"b"}
    parts = _index_parts(writer)
    assert parts == {
        "_titles": {"b": "B"},
        "_filenames": {},
        "_all_titles": {},
        "_index_entries": {},
        "_mapping": {"word": {"b"}},
        "_title_mapping": {},
    }
    _fresh_index(None)  # a builder without a search index
    assert _index_parts(None) == {}


def test_pages_are_shared_in_book_order_four_shares_a_writer() -> None:
    names = [f"p{n}" for n in range(10)]
    assert shares(names, 2) == [names[i : i + 2] for i in range(0, 10, 2)]
    assert shares(names[:3], 2) == [["p0"], ["p1"], ["p2"]]
    assert [name for share in shares(names, 3) for name in share] == names


def _plain_site(
    root: Path, jobs: int
) -> tuple[dict[str, bytes], int, dict[str, int], dict[str, int]]:
    """A small reStructuredText site built by Sphinx with the resolving writers (no
    polybook build around it): its files, the main process, the process that wrote each
    page and the one that resolved it."""
    from sphinx.application import Sphinx

    source = root / "src"
    (source / "img").mkdir(parents=True)
    (source / "pb_writers.py").write_text(WRITERS)
    (source / "conf.py").write_text(
        "import sys\nsys.path.insert(0, __import__('os').path.dirname(__file__))\n"
        "extensions = ['polybook.render.sphinx.parallel_write', 'pb_writers']\n"
        "def setup(app):  # the process that resolves each page\n"
        "    def resolved(app, doctree, docname):\n"
        "        folder = __import__('pathlib').Path(app.doctreedir).parent / 'pb_resolved'\n"
        "        folder.mkdir(exist_ok=True)\n"
        "        (folder / docname).write_text(str(__import__('os').getpid()))\n"
        "    app.connect('doctree-resolved', resolved)\n"
    )
    toctree = "".join(f"   page{n}\n" for n in range(7))
    (source / "index.rst").write_text(f"Book\n====\n\n.. toctree::\n\n{toctree}")
    for n in range(7):
        (source / "img" / f"f{n}.svg").write_text(FIGURE)
        (source / f"page{n}.rst").write_text(
            f"Page {n}\n=======\n\nWords of page {n}: gradient{n}, :ref:`fig-{(n + 1) % 7}`.\n\n"
            f".. _fig-{n}:\n\n.. figure:: img/f{n}.svg\n\n   A figure of page {n}.\n"
        )
    html, doctrees = root / "html", root / "doctrees"
    app = Sphinx(source, source, html, doctrees, "html", status=None, warning=None, parallel=jobs)
    app.build()
    files = {
        str(p.relative_to(html)): p.read_bytes()
        for p in sorted(html.rglob("*"))
        if p.is_file() and p.name != ".buildinfo"
    }
    folder = root / "pb_writers"
    pids = {path.stem: int(path.read_text()) for path in folder.glob("*.pid")}
    resolved = {path.name: int(path.read_text()) for path in (root / "pb_resolved").iterdir()}
    return files, int((folder / "main").read_text()), pids, resolved


@pytest.mark.timeout(60)  # a writer that fails may leave Sphinx waiting: fail, not hang
def test_the_writers_of_a_plain_sphinx_site_write_what_one_process_writes(
    tmp_path: Path,
) -> None:
    serial, *_ = _plain_site(tmp_path / "serial", 1)
    parallel, main, writers, resolved = _plain_site(tmp_path / "parallel", 3)
    assert sorted(parallel) == sorted(serial)
    assert [name for name in serial if parallel[name] != serial[name]] == []
    assert sum(name.startswith("_images/f") for name in parallel) == 7  # each writer's images
    index = parallel["searchindex.js"].decode()
    assert all(f"gradient{n}" in index for n in range(7))  # each writer's words
    assert set(writers) == {"index", *(f"page{n}" for n in range(7))}
    assert writers["index"] == main  # the first page, in the main process (warms the caches)
    assert all(pid != main for name, pid in writers.items() if name != "index")
    assert resolved == writers  # each page resolved where it is written, not in the main one
