"""A page read as d2lbook reads it (cells close on their own run, tab marks read on), and the
one index of its prose: roles, labels, images, headings, by source line, code left out."""

from __future__ import annotations

import pytest

from polybook.diagnostics import PolybookError
from polybook.source.model import CodeCell, Document, Prose, TabProse
from polybook.source.parse import parse
from polybook.source.readable import Readable
from polybook.source.scan import Heading, Image, Label, Role, scan

FENCE = "`" * 3
TABS = ("pytorch", "jax")


def page(text: str) -> Document:
    return parse(text, "p.md", TABS)


def test_a_longer_fence_inside_a_cell_is_its_content() -> None:
    doc = page(
        f"{FENCE}{{.python .input}}\n%%writefile x.md\n````toc\nintro\n````\n{FENCE}\n\nEnd.\n"
    )
    assert doc.blocks == (
        CodeCell(("pytorch",), "%%writefile x.md\n````toc\nintro\n````", 2),
        Prose("End.", 8),
    )


def test_a_tilde_fence_naming_a_cell_inside_a_cell_is_its_content() -> None:
    doc = page(f"{FENCE}{{.python .input}}\n~~~~{{.python .input}}\nx = 1\n~~~~\n{FENCE}\n")
    assert doc.blocks == (CodeCell(("pytorch",), "~~~~{.python .input}\nx = 1\n~~~~", 2),)


def test_a_cell_left_open_before_the_next_is_still_an_error() -> None:
    text = f"{FENCE}{{.python .input}}\nx = 1\n\n{FENCE}{{.python .input}}\ny = 2\n{FENCE}\n"
    with pytest.raises(PolybookError) as raised:
        page(text)
    assert str(raised.value) == (
        "p.md:1: code cell opened here is never closed (line 4 opens another)"
        " [polybook.parse.fence]"
    )


def test_begin_tab_with_a_space_is_read_as_the_tab_with_a_warning() -> None:
    doc = page(":begin_tab: `jax`\nFor JAX.\n:end_tab:\n")
    assert doc.blocks == (TabProse(("jax",), "For JAX.", 2),)
    assert [str(w) for w in doc.warnings] == [
        "p.md:1: write :begin_tab:`jax`, without a space before the backtick [polybook.parse.tab]"
    ]


def test_a_stray_end_tab_is_warned_of_and_skipped() -> None:
    doc = page("Before.\n:end_tab:\nAfter.\n")
    assert doc.blocks == (Prose("Before.", 1), Prose("After.", 3))
    assert [str(w) for w in doc.warnings] == [
        "p.md:2: :end_tab: without :begin_tab: [polybook.parse.tab]"
    ]


PAGE = f"""# Title
:label:`sec_title`

See :numref:`fig_x` and `:ref:`not_a_role``.

![A figure](img/x.svg)
:label:`fig_x`

$$x = 1$$ :eqlabel:`eq_x`

    :numref:`indented_code`

{FENCE}
:label:`fenced_example`
{FENCE}

{FENCE}{{.python .input}}
# :label:`in_a_cell`
{FENCE}
"""


def test_the_index_holds_the_prose_marks_by_line_and_none_from_code() -> None:
    index = page(PAGE).index
    assert index.headings == (Heading(1, 1, "Title"),)
    assert index.labels == (
        Label(2, "label", "sec_title"),
        Label(7, "label", "fig_x"),
        Label(9, "eqlabel", "eq_x"),
    )
    assert index.roles == (Role(4, "numref", "fig_x"),)
    assert index.images == (Image(6, "img/x.svg"),)
    assert {11, 13, 14, 15, 17, 18, 19} <= index.literal


def test_a_cell_of_text_is_indexed_alike_and_read_without_its_code() -> None:
    text = "See :cite:`a,b`.\n\n    :cite:`c`\n"
    assert scan(text).cited() == ("a", "b")
    assert Readable({}).text(text) == "See (a; b).\n\n    :cite:`c`\n"
