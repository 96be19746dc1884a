"""The navigation made once for the book and marked for each page is, for every page,
the one Sphinx and furo make for the page itself."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchmarks.make_book import write_book
from polybook.site.navigation import FURO, folder_tree, mark_current, neutral

from ..books import build


@pytest.mark.slow
def test_every_pages_navigation_is_sphinxs_and_furos_own(tmp_path: Path) -> None:
    import furo
    from furo.navigation import get_navigation_tree
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
    builder = app.builder
    pages = sorted(app.env.found_docs)
    assert len(pages) > 16 and any(page.count("/") == 1 for page in pages)
    sphinx_own = builder._get_local_toctree  # type: ignore[attr-defined]
    for page in pages:
        folder = page.rpartition("/")[0]
        href = builder.get_relative_uri(neutral(folder), page)
        tree = mark_current(folder_tree(app, folder), href)
        assert tree == sphinx_own(page, **FURO), page
        themed = mark_current(folder_tree(app, folder, get_navigation_tree), href, furo=True)
        assert themed == get_navigation_tree(tree), page
    assert furo._compute_navigation_tree.__module__ == "polybook.site.navigation"


def test_a_tree_without_the_page_is_unchanged_and_one_naming_it_twice_is_sphinxs() -> None:
    link = '<a class="reference internal" href="a.html">A</a>'
    tree = f'<ul>\n<li class="toctree-l1">{link}</li>\n</ul>'
    assert mark_current(tree, "b.html") == tree
    assert mark_current(tree + tree, "a.html") is None
    assert mark_current(tree, "a.html") == (
        '<ul class="current">\n<li class="toctree-l1 current">'
        '<a class="current reference internal" href="#">A</a></li>\n</ul>'
    )


def test_furos_item_with_children_is_checked_and_the_innermost_is_the_page() -> None:
    box = '<input aria-label="Toggle" class="toctree-checkbox" id="c1" type="checkbox"/>'
    inner = '<li class="toctree-l2"><a class="reference internal" href="b.html">B</a></li>'
    tree = (
        f'<ul><li class="toctree-l1 has-children"><a class="reference internal" href="a.html">'
        f"A</a>{box}<label></label><ul>{inner}</ul></li></ul>"
    )
    assert mark_current(tree, "b.html", furo=True) == (
        '<ul class="current"><li class="toctree-l1 current has-children">'
        '<a class="reference internal" href="a.html">A</a><input aria-label="Toggle" checked=""'
        ' class="toctree-checkbox" id="c1" type="checkbox"/><label></label><ul class="current">'
        '<li class="toctree-l2 current current-page"><a class="current reference internal"'
        ' href="#">B</a></li></ul></li></ul>'
    )
