"""``tab.selected`` conditions decided per framework, with every kept line's source line."""

from __future__ import annotations

import pytest

from polybook.diagnostics import PolybookError
from polybook.source.selected import select_branches

TABS = ("pytorch", "mxnet", "jax")


def select(code: str, framework: str) -> list[tuple[int, str]]:
    lines = list(enumerate(code.split("\n"), start=10))
    return select_branches(lines, framework, "p.md", TABS)


CHAIN = """\
for i in range(3):
    if i > 1:
        x = 'late'
    elif not (tab.selected('pytorch') or tab.selected('mxnet')):
        x = 'functional'
    else:  # the rest
        x = 'imperative'
    print(x)"""


def test_a_chain_mixing_ordinary_and_decided_conditions() -> None:
    assert select(CHAIN, "jax") == [
        (10, "for i in range(3):"),
        (11, "    if i > 1:"),
        (12, "        x = 'late'"),
        (13, "    else:"),
        (14, "        x = 'functional'"),
        (17, "    print(x)"),
    ]
    assert select(CHAIN, "mxnet") == [
        (10, "for i in range(3):"),
        (11, "    if i > 1:"),
        (12, "        x = 'late'"),
        (15, "    else:  # the rest"),
        (16, "        x = 'imperative'"),
        (17, "    print(x)"),
    ]


def test_an_ordinary_elif_after_a_dropped_branch_becomes_the_if() -> None:
    code = "if tab.selected('jax'):\n    y = 1\nelif y > 2:\n    y = 3\nelse:\n    y = 4"
    assert select(code, "pytorch") == [
        (12, "if y > 2:"),
        (13, "    y = 3"),
        (14, "else:"),
        (15, "    y = 4"),
    ]
    assert select(code, "jax") == [(11, "y = 1")]


NESTED = """\
class Module:
    if tab.selected('mxnet', 'jax'):
        def __init__(self):
            self.board = 1
        if tab.selected('jax'):
            self.training = None

    def loss(self):
        pass"""


def test_a_line_is_dedented_once_however_many_decided_branches_hold_it() -> None:
    # d2l-en's oo-design.md, as d2lbook runs it: the inner line joins ``__init__``'s body.
    assert select(NESTED, "jax") == [
        (10, "class Module:"),
        (12, "    def __init__(self):"),
        (13, "        self.board = 1"),
        (15, "        self.training = None"),
        (16, ""),
        (17, "    def loss(self):"),
        (18, "        pass"),
    ]
    assert [t for _, t in select(NESTED, "mxnet")][3] == ""  # the inner branch dropped


def test_comments_may_name_tab_selected_and_cells_without_it_are_untouched() -> None:
    code = "# if tab.selected('jax'): explained here\nx = [1,\n  2]"
    assert select(code, "jax") == list(enumerate(code.split("\n"), start=10))


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("x = tab.selected('jax')", "understood only in the condition of an `if` or `elif`"),
        ("if tab.selected(name):\n    pass", "takes framework names as strings"),
        ("if tab.selected('jax') == True:\n    pass", "mixes tab.selected() with other names"),
        ("if tab.selected('jax'):\nx = 1", "cannot read this `if`"),
        ("if tab.selected('chainer'):\n    pass", "unknown framework 'chainer'"),
    ],
)
def test_what_cannot_be_decided_is_an_error_at_its_line(code: str, message: str) -> None:
    with pytest.raises(PolybookError) as caught:
        select("z = 0\n" + code, "jax")
    assert str(caught.value.location) == "p.md:11 [jax]"
    assert message in str(caught.value)
