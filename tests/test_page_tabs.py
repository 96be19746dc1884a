"""A page's ``tab.interact_select(...)``: its frameworks, as d2lbook reads them."""

from __future__ import annotations

import pytest

from polybook.diagnostics import PolybookError
from polybook.frameworks import REGISTRY
from polybook.source.model import CodeCell, TabProse
from polybook.source.parse import parse
from polybook.source.split import split

FENCE = "`" * 3
TABS = ("pytorch", "mxnet", "jax")


def page(select: str) -> str:
    return (
        "# Q-learning\n\n"
        f"{FENCE}{{.python .input}}\n%load_ext d2lbook.tab\n{select}\n{FENCE}\n\n"
        f"{FENCE}{{.python .input}}\n%%tab all\nimport gym\n{FENCE}\n\n"
        ":begin_tab:`pytorch, mxnet`\nWords for two.\n:end_tab:\n\n"
        f"{FENCE}{{.python .input}}\n%%tab mxnet\nfrom mxnet import np\n{FENCE}\n"
    )


def frameworks(select: str) -> list[tuple[str, ...]]:
    doc = parse(page(select), "q.md", TABS)
    return [b.frameworks for b in doc.blocks if isinstance(b, CodeCell | TabProse)]


def test_a_page_that_selects_one_framework_has_code_for_it_alone() -> None:
    assert frameworks('tab.interact_select(["pytorch"])') == [
        ("pytorch",),  # the plumbing cell, the first tab's (its lines are dropped)
        ("pytorch",),
        ("pytorch",),
    ]
    doc = parse(page("tab.interact_select(['pytorch'])"), "q.md", TABS)
    mxnet = split(doc, REGISTRY["mxnet"], TABS)
    assert [c.cell_type for c in mxnet.cells] == ["markdown"]  # nothing to run, as d2lbook


def test_the_selection_may_be_several_strings_and_names_frameworks_the_book_builds() -> None:
    selected = frameworks("tab.interact_select('mxnet', 'pytorch', 'tensorflow')")
    assert selected == [("pytorch",), ("pytorch", "mxnet"), ("pytorch", "mxnet"), ("mxnet",)]
    every = frameworks("tab.interact_select(['pytorch', 'mxnet', 'jax'])")
    assert every == [("pytorch",), TABS, ("pytorch", "mxnet"), ("mxnet",)]
    assert frameworks("x = 1") == every  # no selection: the book's tabs


@pytest.mark.parametrize(
    ("select", "message"),
    [
        ("tab.interact_select(chosen)", "names frameworks as strings or a list of them"),
        ("tab.interact_select(['pytroch'])", "unknown framework 'pytroch'"),
    ],
)
def test_a_selection_it_cannot_read_is_an_error_at_its_line(
    select: str, message: str
) -> None:
    with pytest.raises(PolybookError) as raised:
        parse(page(select), "q.md", TABS)
    assert str(raised.value.diagnostics[0].location) == "q.md:5"
    assert message in str(raised.value)
