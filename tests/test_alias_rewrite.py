"""What readers see of code written against d2lbook's aliases: each framework's own code."""

from __future__ import annotations

import pytest

from polybook.config.model import LibraryAliases
from polybook.diagnostics import Reporter
from polybook.library.rewrite import rewrite_notebook, rewriter
from polybook.nb import new_code_cell, new_markdown_cell, new_notebook

TORCH = LibraryAliases(
    lib_name="torch",
    simple_alias="ones, zeros, concat -> cat",
    fluent_alias="reshape, numpy -> detach().numpy, size -> numel",
    reverse_alias="d2l.transpose\\(([\\w\\d_]+)\\) -> \\1.T\n d2l.nn_Module -> nn.Module",
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
    ("d2l.transpose(W)", "W.T"),  # reverse_alias, a regular expression
    ("class Net(d2l.nn_Module):\n    pass", "class Net(nn.Module):\n    pass"),
    # Lines are kept: a call over two lines stays over two lines.
    (
        "Y = d2l.reshape(X,\n                (2, 3))  # two by three",
        "Y = X.reshape(\n                (2, 3))  # two by three",
    ),
    # Names only where they are the library's: not in strings or comments, whole names only.
    ("print('d2l.ones')  # d2l.ones", "print('d2l.ones')  # d2l.ones"),
    ("d2l.ones_like(X), d2l.onesies", "d2l.ones_like(X), d2l.onesies"),
    ("lib.ones(3), d2l.reshape()", "lib.ones(3), d2l.reshape()"),  # no receiver: as written
    ("d2l.reshape(*args)", "d2l.reshape(*args)"),
    # Text before the call that is not ASCII: the tree counts bytes, the edit characters.
    ("s = 'λ→'; X = d2l.ones(2)", "s = 'λ→'; X = torch.ones(2)"),
    # IPython lines are left, the others rewritten; a cell that does not parse is left.
    ("%matplotlib inline\nX = d2l.ones(2)", "%matplotlib inline\nX = torch.ones(2)"),
    ("X = d2l.ones(2\n", "X = d2l.ones(2\n"),
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


def test_a_pattern_that_does_not_compile_is_left_out_at_its_line() -> None:
    reporter = Reporter()
    aliases = LibraryAliases(reverse_alias="d2l.x -> y\nd2l.bad(( -> z", lines={"reverse_alias": 7})
    found = rewriter(aliases, "library-jax", reporter)
    assert [p.pattern for p, _ in found.reverse] == ["d2l.x"]
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:8: [library-jax] reverse_alias: 'd2l.bad((' is not a regular expression"
        " (missing ), unterminated subpattern at position 8): left out [polybook.config.alias]"
    ]
