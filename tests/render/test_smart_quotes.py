"""The smart quotes that pass over untouched text educate every token as docutils does."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from docutils.utils import smartquotes
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.render.sphinx import quotes

# Letters, spaces and every piece docutils educates or unescapes, typographic marks too.
PIECES = ["a", "b", " ", ".", "-", "'", '"', "`", "\\", "&", "#", ";", "&quot;", "&#39;"]
PIECES += ["&#92;", "&#34;", "&#46;", "&#45;", "&#96;", "\u2019", "\u201c", "\u2014"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)
ACTIONS = ["1", "2", "3", "-1", "qDe", "qbBdDiew", "q", "b", "B", "d", "i", "e", "w", ""]
LANGUAGES = ["en", "fr", "de", "it", "ja", "sv"]
TOKENS = st.lists(
    st.tuples(st.sampled_from(["plain", "literal", "tag"]), TEXT),
    max_size=8,
)


@settings(max_examples=2000, deadline=None)
@given(TOKENS, st.sampled_from(ACTIONS), st.sampled_from(LANGUAGES))
def test_every_token_comes_back_as_docutils_educates_it(
    tokens: list[tuple[str, str]], action: str, language: str
) -> None:
    own = list(quotes._DOCUTILS(iter(tokens), action, language))
    assert list(quotes.educate_tokens(iter(tokens), action, language)) == own


def test_plain_text_without_marks_is_passed_over_and_the_rest_educated() -> None:
    assert quotes.untouched("a model learns")
    assert not quotes.untouched("the model's loss")
    assert not quotes.untouched("wait...")
    educated = list(quotes.educate_tokens(iter([("plain", "it's"), ("plain", " done")]), "qDe"))
    assert educated == ["it\u2019s", " done"]


def test_a_sphinx_with_polybooks_extension_educates_with_it(tmp_path: Path) -> None:
    from sphinx.application import Sphinx

    (tmp_path / "index.rst").write_text("Title\n=====\n\nIt's done -- at last...\n")
    before = smartquotes.educate_tokens
    try:
        app = Sphinx(
            str(tmp_path),
            None,
            str(tmp_path / "out"),
            str(tmp_path / "doctrees"),
            "html",
            confoverrides={"extensions": ["polybook.render.sphinx.core_ext"]},
            status=io.StringIO(),
            warning=io.StringIO(),
        )
        assert smartquotes.educate_tokens is quotes.educate_tokens
        app.build()
        page = (tmp_path / "out" / "index.html").read_text()
        assert "It\u2019s done \u2013 at last\u2026" in page
    finally:
        smartquotes.educate_tokens = before


# ---- the transform: Sphinx's pages, its text nodes left in place where unchanged ---------

INLINE = ["``it's``", "*don't*", ":math:`a'`", "`a link's <https://example.org>`_", '**"b"**']
WORDS = ["a", "it's", '"quoted"', "--", "...", "\\'", "\\\\", "plain", "`x`", "'single'"]


def _page(seed: int) -> str:
    """Many paragraphs of prose, marks and inline markup (some a smart-quotable node
    holds, some not), a literal block, an option list and text in another language."""
    import random

    pick = random.Random(seed)
    paragraphs = []
    for _ in range(120):
        words = [pick.choice(WORDS + INLINE) for _ in range(pick.randint(1, 6))]
        paragraphs.append(" ".join(words))
    paragraphs.append('::\n\n    it\'s "code" -- as is')
    paragraphs.append('-a      it\'s "an" option -- here')
    paragraphs.append(".. container:: language-de\n\n   Er sagt \"ja\" -- und 'nein'.")
    return "Title\n=====\n\n" + "\n\n".join(paragraphs) + "\n"


def _built(root: Path, restore_sphinxs: bool) -> str:
    from sphinx.application import Sphinx

    app = Sphinx(
        str(root),
        None,
        str(root / "out"),
        str(root / "doctrees"),
        "html",
        confoverrides={
            "extensions": ["polybook.render.sphinx.core_ext"]
            + (["sphinxs_quotes"] if restore_sphinxs else []),
        },
        status=io.StringIO(),
        warning=io.StringIO(),
    )
    app.build()
    return (root / "out" / "index.html").read_text(encoding="utf-8")


def test_the_passing_transform_writes_the_pages_sphinxs_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sphinxs_quotes.py").write_text(
        "from sphinx.transforms import SphinxSmartQuotes\n"
        "from polybook.render.sphinx.quotes import PassingSmartQuotes\n"
        "def setup(app):\n"
        "    found = app.registry.transforms\n"
        "    found[:] = [SphinxSmartQuotes if t is PassingSmartQuotes else t for t in found]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    pages = {}
    for restore in (False, True):
        root = tmp_path / ("sphinx" if restore else "ours")
        root.mkdir()
        (root / "index.rst").write_text(_page(7), encoding="utf-8")
        before = smartquotes.educate_tokens
        try:
            pages[restore] = _built(root, restore)
        finally:
            smartquotes.educate_tokens = before
    assert "\u2019" in pages[False] and "\u201c" in pages[False]  # educated
    assert '\'s "code" -- as is</span>' in pages[False]  # a literal block is not
    assert "\u201eja\u201c" in pages[False]  # a block in German, in German quotes
    assert pages[False] == pages[True]
