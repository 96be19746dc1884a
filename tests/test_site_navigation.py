"""The navigation tree computed once per folder is, for every page, the one Sphinx makes
for the page itself."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchmarks.make_book import write_book
from polybook.site.navigation import _folder_tree, _neutral, mark_current

from .books import build

FURO = {"collapse": False, "titles_only": True, "maxdepth": -1, "includehidden": True}


@pytest.mark.slow
def test_every_pages_tree_is_sphinxs_own(tmp_path: Path) -> None:
    from sphinx.application import Sphinx

    root = tmp_path / "book"
    write_book(root, 16)
    assert build(root) == 0
    settings = json.loads((root / "_build" / "sphinx-html.json").read_text())
    app = Sphinx(
        settings["srcdir"],
        None,
        str(tmp_path / "out"),
        settings["doctreedir"],
        "html",
        confoverrides={**settings["config"], "pb_builder": "html"},
        status=io.StringIO(),
        warning=io.StringIO(),
    )
    app.builder.init()
    builder = app.builder
    pages = sorted(app.env.found_docs)
    assert len(pages) > 16 and any("/" in p for p in pages)
    for page in pages:
        folder = page.rpartition("/")[0]
        href = builder.get_relative_uri(_neutral(folder), page)
        fast = mark_current(_folder_tree(app, folder, FURO), href)
        assert fast == builder._get_local_toctree(page, **FURO), page  # type: ignore[attr-defined]


def test_a_tree_without_the_page_is_unchanged_and_one_naming_it_twice_is_sphinxs() -> None:
    tree = (
        '<ul>\n<li class="toctree-l1"><a class="reference internal" href="a.html">A</a></li>\n</ul>'
    )
    assert mark_current(tree, "b.html") == tree
    assert mark_current(tree + tree, "a.html") is None
    assert mark_current(tree, "a.html") == (
        '<ul class="current">\n<li class="toctree-l1 current">'
        '<a class="current reference internal" href="#">A</a></li>\n</ul>'
    )
