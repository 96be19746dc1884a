"""d2l prose -> MyST: code stays literal, as CommonMark reads it; every line keeps its origin."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.diagnostics import Reporter
from polybook.render import myst
from polybook.render.myst import prose_to_myst
from polybook.render.page import render_page
from polybook.render.sphinx.unresolved import readable
from polybook.source.parse import parse

from ..books import write_book

EXAMPLE = """\
Write a reference like this:

````md
```
See :numref:`sec_x`.
```

And :eqref:`eq_y`.
````

Then :numref:`sec_real` works."""


def convert(text: str, first_line: int = 10) -> list[tuple[int, str]]:
    lines = prose_to_myst(text, first_line, "p.md", Reporter())
    return list(zip(lines.origin, lines.text, strict=True))


def test_roles_inside_a_four_backtick_example_stay_literal() -> None:
    out = convert(EXAMPLE)
    source = EXAMPLE.split("\n")
    # Nothing is added or dropped: line k of the output comes from source line 10 + k.
    assert [origin for origin, _ in out] == list(range(10, 10 + len(source)))
    assert [text for _, text in out][:-1] == source[:-1]  # the example, as written
    assert out[-1] == (20, "Then {numref}`sec_real` works.")


def test_a_fence_closes_only_at_as_many_of_its_own_character() -> None:
    text = "~~~~\n:numref:`a`\n```\n~~~\n:numref:`b`\n~~~~~\n:numref:`c`"
    assert [t for _, t in convert(text)] == [
        "~~~~",
        ":numref:`a`",
        "```",
        "~~~",
        ":numref:`b`",
        "~~~~~",
        "{numref}`c`",
    ]


def test_a_closing_fence_may_be_longer_but_not_followed_by_text() -> None:
    text = "```\n:ref:`a`\n``` not a close\n:ref:`b`\n`````\n:ref:`c`"
    assert [t for _, t in convert(text)][-1] == "{ref}`c`"
    assert [t for _, t in convert(text)][3] == ":ref:`b`"


def test_an_unclosed_fence_keeps_the_rest_of_the_block_literal() -> None:
    text = "```\n:numref:`a`\n\n:numref:`b`"
    assert [t for _, t in convert(text)] == text.split("\n")


def test_indented_code_is_code_and_labels_after_headings_still_attach() -> None:
    text = "# Title\n:label:`sec_t`\n\n    :numref:`kept`\n\nSee :numref:`sec_t`."
    out = convert(text, 1)
    assert out[0] == (2, "(sec_t)=")
    assert (4, "    :numref:`kept`") in out
    assert out[-1] == (6, "See {numref}`sec_t`.")


def test_toc_entries_keep_their_own_source_lines() -> None:
    text = "# Book\n\n```toc\n:maxdepth: 2\n\nchap/a\n\n\nchap/b.md\n```\n"
    page = render_page(parse(text, "index.md", ("pytorch",)), {}, ("pytorch",), Reporter())
    lines = dict(zip(page.lines.text, page.lines.origin, strict=False))
    assert (lines["chap/a"], lines["chap/b"]) == (6, 9)
    assert lines["```{toctree}"] == 3


RAW_PAGE = """\
# Front

```eval_rst
.. raw:: html
   :file: front.html
```

```eval_rst
.. raw:: html
   :file: ../../secret.html
```
"""


def test_a_raw_file_is_read_relative_to_its_page_and_only_inside_the_book(
    tmp_path: Path,
) -> None:
    root = write_book(
        tmp_path / "book",
        {"chap/front.html": "<p>front</p>", "chap/page.md": RAW_PAGE, "secret.html": "x"},
    )
    reporter = Reporter()
    doc = parse(RAW_PAGE, "chap/page.md", ("pytorch",))
    page = render_page(doc, {}, ("pytorch",), reporter, root=root)
    assert page.files == {"chap/front.html": b"<p>front</p>"}  # beside the rendered page
    assert "   :file: front.html" in page.lines.text
    assert [str(d) for d in reporter.diagnostics] == [
        "chap/page.md:10: `:file: ../../secret.html` is outside the book: left out"
        " [polybook.render.raw]"
    ]
    left_out = page.lines.text[page.lines.origin.index(9)]
    assert left_out == ".. left out: .. raw:: html"  # a comment: nothing is read or shown


@pytest.mark.parametrize(
    ("target", "reftype", "text"),
    [
        ("fig_lstm_2", "numref", "Fig. “lstm 2”"),
        ("tab_glove", "numref", "Table “glove”"),
        ("sec_linear-regression", "ref", "Section “linear regression”"),
        ("eq_ftc", "eq", "(ftc)"),
        ("orphan", "numref", "“orphan”"),
    ],
)
def test_a_reference_to_nothing_reads_as_words(target: str, reftype: str, text: str) -> None:
    assert readable(target, reftype) == text


DISPLAY_IN_PARAGRAPH = """\
The product of $\\mathbf{A}$ and $\\mathbf{B}$ is:
$$
\\mathbf{A} \\odot \\mathbf{B} =
\\begin{bmatrix}
    a_{11} b_{11} & a_{12} b_{12} \\\\
\\end{bmatrix}.
$$

So it goes on."""


def test_a_display_equation_continuing_a_paragraph_is_read_as_one_equation() -> None:
    """d2l books open display math on the line after a paragraph's text; MyST read the
    ``\\begin{bmatrix}`` line as an amsmath block that ended the paragraph, and showed the
    ``$$`` lines as text."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    out = convert(DISPLAY_IN_PARAGRAPH)
    texts = [text for _, text in out]
    assert texts[:3] == [DISPLAY_IN_PARAGRAPH.split("\n", maxsplit=1)[0], "", "$$"]
    assert [origin for origin, _ in out][:3] == [10, 10, 11]  # the blank line is the text's
    myst = MarkdownIt("commonmark").use(dollarmath_plugin).use(amsmath_plugin)
    tokens = myst.parse("\n".join(texts))
    (math,) = [t for t in tokens if t.type == "math_block"]
    assert "\\begin{bmatrix}" in math.content and "\\odot" in math.content
    assert not [t for t in tokens if t.type == "amsmath"]
    inline = [t.content for t in tokens if t.type == "inline"]
    assert not any("$$" in text for text in inline)
    # An equation already apart, and one inside a paragraph's line, are left as they are.
    assert [t for _, t in convert("Text.\n\n$$x$$")] == ["Text.", "", "$$x$$"]
    assert [t for _, t in convert("Inline $$x$$ math.")] == ["Inline $$x$$ math."]


def test_a_citation_key_split_by_a_space_is_read_whole_with_a_warning() -> None:
    """d2l-pt writes ``:cite:`Bay.Tuytelaars.Van- Gool.2006```: sphinxcontrib-bibtex raised
    on it and the page failed; d2lbook reads on."""
    reporter = Reporter()
    text = "SURF :cite:`Bay.Tuytelaars.Van- Gool.2006, Lowe.2004` and :citet:`a,` here."
    (line,) = prose_to_myst(text, 3, "p.md", reporter).text
    assert line == "SURF {cite:p}`Bay.Tuytelaars.Van-Gool.2006,Lowe.2004` and {cite:t}`a` here."
    said = [(str(w.location), w.subtype) for w in reporter.warnings]
    assert said == [("p.md:3", "cite.key"), ("p.md:3", "cite.key")]


def test_a_footnote_reference_the_page_does_not_define_stays_text() -> None:
    """A regex in prose (``[^A-Za-z]``, d2l-neu's syntax notes) is no footnote: docutils
    failed the page with "Too many autonumbered footnote references"; a defined one stays."""
    text = "Keep [^A-Za-z]+ and `[^x]` as written, and note this[^1].\n\n[^1]: A footnote."
    lines = prose_to_myst(text, 1, "p.md", Reporter(), footnotes={"1"}).text
    assert lines == [
        "Keep \\[^A-Za-z]+ and `[^x]` as written, and note this[^1].",
        "",
        "[^1]: A footnote.",
    ]


# Lines of prose as authors write them: list items, quotes, indents, pipes and fences.
_prefixes = st.sampled_from(["", "- ", "1. ", "> ", ">", "* ", "10) ", "  ", "   ", "\t"])
_indents = st.integers(0, 6).map(lambda n: " " * n)
_contents = st.sampled_from(
    ["text", "`code`", "```", "~~~", "``", "~~", "| a | b |", "|---|---|", "---", "===", "$$", ""]
)
_lines = st.tuples(_indents, _prefixes, _indents, _contents).map("".join)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_lines, min_size=1, max_size=8).map("\n".join))
def test_prose_without_a_block_mark_holds_no_code_nor_table(text: str) -> None:
    # what lets the scan of a prose block skip CommonMark's parse (myst.BLOCK_MARKS)
    tokens = myst._markdown.parse(text + "\n")
    if not any(mark in text for mark in myst.BLOCK_MARKS):
        assert not [t.type for t in tokens if t.type in ("fence", "code_block", "table_open")]
