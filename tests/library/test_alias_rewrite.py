"""What readers see of code written against d2lbook's aliases: each framework's own code,
where d2lbook's ``replace_alias`` puts it (``tests/source/test_d2lbook_reader.py`` compares pages
with d2lbook itself)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.config.model import LibraryAliases
from polybook.diagnostics import Reporter
from polybook.library.rewrite import Rewriter, rewrite_notebook, rewriter
from polybook.nb import new_code_cell, new_markdown_cell, new_notebook

TORCH = LibraryAliases(
    lib_name="torch",
    simple_alias="ones, zeros, concat -> cat",
    fluent_alias="reshape, numpy -> detach().numpy, size -> numel",
    reverse_alias="d2l.transpose\\(([\\w\\d_]+)\\) -> \\1.T\n d2l.nn_Module -> nn.Module\n"
    "d2l.f(a, b) -> g(b, a)",
)

CASES = [
    ("X = d2l.ones(3)", "X = torch.ones(3)"),
    (
        "Y = d2l.concat([d2l.ones(2), d2l.zeros(2)])",
        "Y = torch.cat([torch.ones(2), torch.zeros(2)])",
    ),
    ("d2l.reshape(X, (2, 3))", "X.reshape((2, 3))"),
    ("d2l.reshape(d2l.ones(6), (2, 3))", "torch.ones(6).reshape((2, 3))"),
    ("d2l.reshape(d2l.reshape(X, -1), (2, 3))", "X.reshape(-1).reshape((2, 3))"),
    ("d2l.reshape(X + 1, shape=(2, 3))", "(X + 1).reshape(shape=(2, 3))"),
    # An argument in parentheses of its own (d2l-en's corr2d): they close before the rest.
    ("d2l.numpy((X[0: 2] * K))", "(X[0: 2] * K).detach().numpy()"),
    ("d2l.reshape(( X ), (2, 3))", "X.reshape((2, 3))"),
    ("d2l.numpy(X)", "X.detach().numpy()"),
    ("n = d2l.size(X[0])", "n = X[0].numel()"),
    # reverse_alias: text replaced as written, a line each (d2l-en's regular expressions
    # never match: its pages keep `d2l.transpose(W)`, which its library defines).
    ("d2l.transpose(W)", "d2l.transpose(W)"),
    ("y = d2l.f(a, b)", "y = g(b, a)"),
    ("class Net(d2l.nn_Module):\n    pass", "class Net(nn.Module):\n    pass"),
    # Lines are kept: a call over two lines stays over two lines.
    (
        "Y = d2l.reshape(X,\n                (2, 3))  # two by three",
        "Y = X.reshape(\n                (2, 3))  # two by three",
    ),
    # simple_alias: the text, wherever it stands (strings, comments, a longer name's start).
    ("print('d2l.ones')  # d2l.ones", "print('torch.ones')  # torch.ones"),
    ("d2l.ones_like(X), d2l.onesies", "torch.ones_like(X), torch.onesies"),
    ("lib.ones(3), d2l.reshape()", "lib.ones(3), d2l.reshape()"),  # no receiver: as written
    ("d2l.reshape(*args)", "d2l.reshape(*args)"),
    # Text before the call that is not ASCII: the tree counts bytes, the edit characters.
    ("s = 'λ→'; X = d2l.ones(2)", "s = 'λ→'; X = torch.ones(2)"),
    # IPython lines are left, the others rewritten; a cell that does not parse keeps its
    # fluent calls (its text aliases are replaced all the same).
    ("%matplotlib inline\nX = d2l.reshape(Y, 2)", "%matplotlib inline\nX = Y.reshape(2)"),
    ("X = d2l.reshape(d2l.ones(2\n", "X = d2l.reshape(torch.ones(2\n"),
]


@pytest.mark.parametrize(("code", "expected"), CASES)
def test_aliases_become_the_frameworks_own_code(code: str, expected: str) -> None:
    assert rewriter(TORCH, "library-pytorch", Reporter()).rewrite(code) == expected


def test_a_notebook_is_copied_only_where_a_cell_changes() -> None:
    rewrite = rewriter(TORCH, "library-pytorch", Reporter())
    nb = new_notebook()
    nb.cells += [new_markdown_cell("d2l.ones(2)", "m"), new_code_cell("x = 1", "c")]
    assert rewrite_notebook(nb, rewrite) is nb
    nb.cells.append(new_code_cell("d2l.ones(2)", "d"))
    done = rewrite_notebook(nb, rewrite)
    assert [c.source for c in done.cells] == ["d2l.ones(2)", "x = 1", "torch.ones(2)"]
    assert nb.cells[2].source == "d2l.ones(2)"


def test_without_lib_name_only_reverse_alias_applies() -> None:
    aliases = LibraryAliases(
        simple_alias="ones", fluent_alias="reshape", reverse_alias="d2l.nn_Module -> nn.Module"
    )
    rewrite = rewriter(aliases, "library-pytorch", Reporter()).rewrite
    code = "class A(d2l.nn_Module): pass\nd2l.reshape(d2l.ones(2), 2)"
    assert rewrite(code) == "class A(nn.Module): pass\nd2l.reshape(d2l.ones(2), 2)"


def test_a_reverse_alias_that_names_no_text_is_left_out_at_its_line() -> None:
    reporter = Reporter()
    aliases = LibraryAliases(reverse_alias="d2l.x -> y\n -> z", lines={"reverse_alias": 7})
    found = rewriter(aliases, "library-jax", reporter)
    assert found.texts == (("d2l.x", "y"),)
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:8: [library-jax] reverse_alias: '-> z' names no text to replace: left out"
        " [polybook.config.alias]"
    ]


# Calls of the library around the fluent names: spaces, lines, backslashes and comments
# between ``d2l``, the dot and the name; names that only begin like one; text before.
SEPARATORS = ["", " ", "\n ", "\\\n", "  # note\n "]
NAMES = ["reshape", "numpy", "size", "reshapes", "ones", "sizes"]
BEFORE = ["", "x = 1\n", "# d2l.reshape(X, 2)\n", "s = 'd2l.size(X)'\n", "%time\n"]


@st.composite
def _cells(draw: st.DrawFn) -> str:
    first, second = draw(st.sampled_from(SEPARATORS)), draw(st.sampled_from(SEPARATORS))
    name = draw(st.sampled_from(NAMES))
    args = draw(st.sampled_from(["X", "X, 2", "d2l.ones(2), 3", "", "*a"]))
    call = f"d2l{first}.{second}{name}({args})"
    wrapped = draw(st.booleans()) or "\n" in first + second
    return draw(st.sampled_from(BEFORE)) + (f"y = ({call})" if wrapped else f"y = {call}")


@settings(max_examples=400, deadline=None)
@given(_cells())
def test_a_cell_not_parsed_for_fluent_calls_would_have_had_none(code: str) -> None:
    """The cells passed over without a parse (no ``d2l.<fluent name>`` as Python may write
    it) are rewritten as the parse would have rewritten them."""
    found = rewriter(TORCH, "library-pytorch", Reporter())
    parsed = Rewriter(found.texts, found.fluent)
    object.__setattr__(parsed, "_named", re.compile(""))  # every cell parsed
    assert found._rewritten(code) == parsed._rewritten(code)
