"""Sphinx's footnote, translation-progress and translatable-inline transforms, each done in
one walk of the page: the same page as Sphinx's own make of it."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from hypothesis import given, settings
from hypothesis import strategies as st
from sphinx.application import Sphinx
from sphinx.builders.latex.transforms import FootnoteDocnameUpdater
from sphinx.transforms.i18n import RemoveTranslatableInline, TranslationProgressTotaliser

from polybook.render.sphinx import walks

from ..sphinx_apps import rst_app

# Elements as a page may hold them: translated or not, translatable inlines, footnotes.
KINDS = [nodes.paragraph, nodes.inline, nodes.footnote, nodes.footnote_reference]
KINDS += [nodes.section, nodes.emphasis, nodes.literal_block]


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0) -> nodes.Element:
    node = draw(st.sampled_from(KINDS))()
    for key in draw(st.lists(st.sampled_from(["translated", "translatable", "ids"]))):
        node[key] = draw(st.booleans()) if key != "ids" else ["x"]
    for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        node += draw(_trees(depth + 1)) if draw(st.booleans()) else nodes.Text("t")
    return node


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Sphinx:
    src = tmp_path_factory.mktemp("src")
    (src / "index.rst").write_text("Index\n=====\n")
    app = rst_app(src, tmp_path_factory.mktemp("work"))
    app.env.current_document.docname = "page"
    return app


def _page(app: Sphinx, tree: nodes.Element) -> nodes.document:
    document = new_document("page", get_default_settings(Parser))
    document.settings.env = app.env
    document += tree
    return document


@settings(max_examples=300, deadline=None)
@given(tree=_trees())
def test_each_walk_makes_the_page_sphinx_makes(app: Sphinx, tree: nodes.Element) -> None:
    for sphinxs, ours in walks.REPLACED.items():
        expected, made = _page(app, copy.deepcopy(tree)), _page(app, copy.deepcopy(tree))
        sphinxs(expected).apply()
        ours(made).apply()
        assert made.pformat() == expected.pformat(), sphinxs.__name__
        assert made.get("translation_progress") == expected.get("translation_progress")


def test_a_sphinx_with_polybooks_extension_walks_with_them(tmp_path: Path) -> None:
    (tmp_path / "index.rst").write_text("Index\n=====\n\nA note [#n]_.\n\n.. [#n] Noted.\n")
    app = rst_app(tmp_path, tmp_path, extensions=["polybook.render.sphinx.core_ext"])
    transforms = app.registry.get_transforms()
    assert walks.FootnotePages in transforms and FootnoteDocnameUpdater not in transforms
    assert TranslationProgressTotaliser not in transforms
    assert RemoveTranslatableInline not in transforms
    app.build()
    page = app.env.get_doctree("index")
    assert [n["docname"] for n in page.findall(nodes.footnote)] == ["index"]
    assert page["translation_progress"] == {"total": 0, "translated": 0}
