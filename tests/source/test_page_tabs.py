"""A page's frameworks, as d2lbook reads them: its ``%%tab all`` cells are shared by the
frameworks its cells and tab prose name (and the book's first)."""

from __future__ import annotations

from polybook.config.declarations import SHIPPED
from polybook.source.model import CodeCell, TabProse
from polybook.source.parse import parse
from polybook.source.split import split

FENCE = "`" * 3
TABS = ("pytorch", "mxnet", "jax")
PLUMBING = (
    f"{FENCE}{{.python .input}}\n%load_ext d2lbook.tab\ntab.interact_select(CHOSEN)\n{FENCE}\n\n"
)


def cell(spec: str, code: str) -> str:
    return f"{FENCE}{{.python .input}}\n%%tab {spec}\n{code}\n{FENCE}\n\n"


def frameworks(text: str) -> list[tuple[str, ...]]:
    doc = parse("# Page\n\n" + text, "p.md", TABS)
    return [b.frameworks for b in doc.blocks if isinstance(b, CodeCell | TabProse)]


def test_all_is_shared_by_the_frameworks_the_page_names() -> None:
    text = cell("mxnet", "from mxnet import np") + cell("all", "x = np.ones(2)")
    assert frameworks(text) == [("mxnet",), ("pytorch", "mxnet")]
    prose = ":begin_tab:`jax`\nWords.\n:end_tab:\n\n" + cell("all", "x = 1")
    assert frameworks(prose) == [("jax",), ("pytorch", "jax")]


def test_a_d2lbook_page_that_names_none_is_the_first_frameworks_alone() -> None:
    select = PLUMBING.replace("CHOSEN", '["pytorch", "mxnet"]')  # a choice, not a rule
    text = select + cell("all", "import gym")
    assert frameworks(text) == [("pytorch",), ("pytorch",)]
    doc = parse("# Q-learning\n\n" + text, "q.md", TABS)
    mxnet = split(doc, SHIPPED["mxnet"], TABS)
    assert [c.cell_type for c in mxnet.cells] == ["markdown"]  # nothing to run, as d2lbook
    named = select.replace("mxnet", "jax") + cell("all", "x = 1") + cell("jax", "y = 2")
    assert frameworks(named) == [("pytorch",), ("pytorch", "jax"), ("jax",)]


def test_a_page_of_its_own_that_names_none_is_every_frameworks() -> None:
    assert frameworks(cell("all", "x = 1")) == [TABS]
