"""polybook's notebooks against d2lbook 1.0.3's own reader (``read_markdown``,
``split_markdown_cell``, ``get_tab_notebook``, ``replace_alias``), run in a venv of its own
(``requirements/d2lbook-reader*.txt``, made once): every page of every fixture book, for each
of its frameworks, holds the same code cells (whitespace aside) and installs the same
``#required_libs``, but where polybook differs on purpose (docs/start.md lists where).
``fixtures/d2lbook_reader`` holds small pages made for this: tabs, ``%%tab all``, untagged
cells, ``#required_libs``, aliases where d2lbook applies them and where it does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.d2lbook_diff import compare, d2lbook_notebooks, polybook_notebooks, reader_python

from ..environments import REPO_ENVS

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parents[1] / "fixtures"
BOOKS = sorted(config.parent.name for config in FIXTURES.glob("*/config.ini"))
FOUR = ("pytorch", "mxnet", "jax", "tensorflow")

# Where polybook's notebooks differ from d2lbook's on purpose (docs/start.md says why): the
# code cells that differ, () where the notebooks do not hold as many.
KEPT = {
    # polybook's own mark, read out of the code (d2lbook leaves it as a comment); an `else:`
    # after `tab.selected` (d2lbook keeps it as written: code that does not parse)
    **{("book", "chap/tensors.md", fw): (6, 7) if fw == "jax" else (5, 6) for fw in FOUR},
    # `if not tab.selected('jax')`: d2lbook keeps the branch where the name is on its line
    ("d2lbook_book", "chapter_a/x.md", "pytorch"): (5,),
    ("d2lbook_book", "chapter_a/x.md", "jax"): (5,),
    # an `else:` after `tab.selected`, and a `#@tab` line inside a cell (d2lbook drops the
    # line after it)
    ("slides_book", "chapter/basics.md", "pytorch"): (2,),
    ("slides_book", "chapter/basics.md", "jax"): (2,),
    # a page without the set-up cell that names no framework: every framework's
    ("slides_book", "chapter/plain.md", "jax"): (),
}


@pytest.fixture(scope="module")
def reader() -> Path:
    return reader_python(REPO_ENVS.path / "d2lbook-reader")


@pytest.mark.parametrize("name", BOOKS)
def test_each_notebook_holds_the_code_d2lbooks_holds(reader: Path, name: str) -> None:
    found = compare(FIXTURES / name, reader)
    differing = {(name, d.page, d.framework): d.cells for d in found.differences}
    shown = "\n".join(f"{d.page} [{d.framework}]: {d.why}\n{d.detail}" for d in found.differences)
    assert differing == {pair: cells for pair, cells in KEPT.items() if pair[0] == name}, shown
    assert found.notebooks > 0


def test_the_made_pages_show_what_d2lbook_does_with_them(reader: Path) -> None:
    root = FIXTURES / "d2lbook_reader"
    pages, tabs, ours = polybook_notebooks(root)
    theirs = d2lbook_notebooks(reader, root, pages, tabs)
    gym = ("setuptools==66", "wheel==0.38.4", "gym==0.21.0")
    assert theirs[("chapter/required.md", "pytorch")].required_libs == gym
    assert ours[("chapter/required.md", "pytorch")].required_libs == gym
    first = ("syne-tune[gpsearchers]==0.3.2", "gpytorch")
    assert theirs[("chapter/required_first.md", "pytorch")].required_libs == first
    assert not theirs[("chapter/required_first.md", "jax")].required_libs
    for side in (ours, theirs):
        assert not any("required_libs" in c for c in side[("chapter/required.md", "pytorch")].code)
        mxnet, tensorflow = (
            side[("chapter/aliases.md", fw)].code for fw in ("mxnet", "tensorflow")
        )
        # reverse_alias is text: d2l-en's regular expressions leave the calls as written
        assert "n = d2l.size(Y)" in mxnet[1] and "T = d2l.transpose(X)" in mxnet[1]
        assert "n = d2l.size(Y)" in tensorflow[1]
        # simple_alias is text: in comments and strings too
        assert "print('np.ones', np.ones_like(X))" in mxnet[1]
