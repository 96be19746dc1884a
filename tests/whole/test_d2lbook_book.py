"""End to end: a book in d2lbook's layout, written as d2lbook books are, builds unchanged.

The fixture (``fixtures/d2lbook_book``) has a root toc over chapter folders, ``static/`` with a
sub-folder, a captioned and labelled table, an ``eval_rst`` block, standalone ``#@save``
lines, ``tab.selected`` in boolean expressions, IPython syntax, labelled aligned equations,
and the tabs ``pytorch, jax``. Both kernels run; the cells need no framework.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from polybook.commands.cli import main
from polybook.nb import reads

from ..books import Collect
from ..books import copy_fixture as copy_book

pytestmark = pytest.mark.slow
WARNINGS = Collect()
FLUENT = "reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)"
ALIASES = {  # the config's: each after the saved code that imports what it reads
    "pytorch": [
        f"\n# config.ini:20\n{FLUENT}\n",  # reads nothing: first
        "import torch\n\n# config.ini:18\nones = torch.ones\nconcat = torch.cat\n"
        "nn_Module = torch.nn.Module\n",
    ],
    "jax": [
        f"\n# config.ini:27\n{FLUENT}\n",
        "from jax import numpy as jnp\n\n# config.ini:26\nones = jnp.ones\n"
        "concat = jnp.concatenate\n",
    ],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = copy_book(tmp_path_factory.mktemp("d2lbook") / "book", "d2lbook_book")
    logger = logging.getLogger("polybook")
    logger.addHandler(WARNINGS)
    try:
        code = main(["--quiet", "--root", str(root), "build", "html"])
    finally:
        logger.removeHandler(WARNINGS)
    return root, code


def page(root: Path, name: str) -> BeautifulSoup:
    return BeautifulSoup((root / "_build/html" / name).read_text(encoding="utf-8"), "html.parser")


def link(soup: BeautifulSoup, target: str) -> Tag:
    found = [a for a in soup.select("a.reference") if str(a.get("href", "")).endswith(target)]
    assert found, f"no link to {target}"
    return found[0]


def test_the_book_builds_with_no_error_and_no_warning(built: tuple[Path, int]) -> None:
    root, code = built
    assert code == 0
    assert WARNINGS.messages == []
    assert main(["--quiet", "--root", str(root), "check"]) == 0
    assert (root / "_build/html/_static/css/book.css").is_file()


def test_a_labelled_table_is_numbered_with_its_caption_and_numref_links_to_it(
    built: tuple[Path, int],
) -> None:
    soup = page(built[0], "chapter_a/x.html")
    table = soup.select_one("table#tab-sizes")
    assert table is not None
    caption = table.select_one("caption")
    assert caption is not None
    text = caption.get_text(" ", strip=True)
    number = re.match(r"Table (\d+(?:\.\d+)+) Sizes of the data sets", text)
    assert number, text
    assert [th.get_text(strip=True) for th in table.select("th")] == ["Name", "Rows"]
    assert link(soup, "#tab-sizes").get_text(strip=True) == f"Table {number.group(1)}"
    other = page(built[0], "chapter_b/api.html")
    assert link(other, "x.html#tab-sizes").get_text(strip=True) == f"Table {number.group(1)}"


def test_eval_rst_blocks_are_rendered_as_restructuredtext(built: tuple[Path, int]) -> None:
    soup = page(built[0], "chapter_b/api.html")
    note = soup.select_one("div.admonition.note")
    assert note is not None and "This note is reStructuredText." in note.get_text()
    summary = soup.select_one("table.autosummary")
    assert summary is not None
    assert [c.get_text(strip=True) for c in summary.select("td:first-child code")][:2] == [
        "dumps",
        "loads",
    ]
    assert "eval_rst" not in soup.get_text()


def test_autodoc_documents_the_books_library_with_its_framework_mocked(
    built: tuple[Path, int],
) -> None:
    # d2l.torch imports torch, which the site's Python lacks; the tests run beside another
    # d2l package (this repository's): the book's own is the one documented.
    soup = page(built[0], "chapter_b/api.html")
    entry = soup.select_one("dl.py.function > dt#d2l\\.torch\\.numel")
    assert entry is not None
    body = entry.find_next_sibling("dd")
    assert body is not None and "How many numbers a tensor of" in body.get_text()
    panel = entry.find_parent("div", class_="pb-panel")
    assert panel is not None and panel["data-pb-tab"] == "pytorch"
    assert (Path.cwd() / "d2l" / "torch.py").is_file()


def test_equations_are_numbered_per_section_and_eqref_links_to_them(
    built: tuple[Path, int],
) -> None:
    soup = page(built[0], "chapter_a/x.html")
    numbers = {
        str(div["id"]): div.select_one("span.eqno").get_text(strip=True).rstrip("¶")  # type: ignore[union-attr]
        for div in soup.select("div.math[id]")
    }
    assert numbers == {"equation-eq-loss": "(1.1.1)", "equation-eq-grad": "(1.1.2)"}
    drawn = soup.select_one("div#equation-eq-grad span.pb-math[role=img]")  # SVG, at build time
    assert drawn is not None and "aligned" in str(drawn["aria-label"])
    assert link(soup, "#equation-eq-grad").get_text(strip=True) == "(1.1.2)"
    other = page(built[0], "chapter_b/api.html")
    assert link(other, "x.html#equation-eq-loss").get_text(strip=True) == "(1.1.1)"


def test_code_runs_per_framework_and_the_library_keeps_d2lbooks_contract(
    built: tuple[Path, int],
) -> None:
    root = built[0]
    soup = page(root, "chapter_a/x.html")
    panels = {
        (str(p["data-pb-tab"]), i): p.get_text(" ", strip=True)
        for i, p in enumerate(soup.select("div.pb-panel"))
    }
    texts = "\n".join(panels.values())
    assert "style: imperative" in texts and "style: functional" in texts
    assert "framework: torch 1" in texts and "framework: jax 1" in texts
    assert "numbers: 6" in texts  # the saved import of the framework runs in its kernel
    assert "shell says hi" in texts  # the IPython line ran in the kernel
    assert "tab.selected" not in texts
    for lib, name in (("torch.py", "torch"), ("jax.py", "jax")):
        text = (root / "d2l" / lib).read_text()
        for saved in ("DATA_HUB = dict()", "DATA_URL = ", "def add_to_class(", "class Counter"):
            assert saved in text, (lib, saved)
        assert "d2l.DATA_HUB['tiny'] = (" in text
        assert f"def framework_name():\n    return '{name}'" in text
        assert "class Counter:" in text and "    def bump(self):\n" in text  # in its class
        assert "bump" not in [line.split("(")[0] for line in text.split("\n")[:1]]
        assert "del bump" not in text and "\ndef bump" not in text
        assert not re.search(r"^\s*[%!]", text, re.M)
    for fw, aliases in ALIASES.items():
        nb = reads((root / f"_build/eval/{fw}/chapter_a/x.ipynb").read_text())
        printed = [o.get("text") for c in nb.cells if c.cell_type == "code" for o in c.outputs]
        assert "aliases: (2, 2) (3, 3)\n" in printed, fw  # the library's and the page's
        library = (root / "d2l" / f"{fw.replace('pytorch', 'torch')}.py").read_text()
        assert all(part in library for part in aliases), library
        assert "return d2l.reshape(d2l.concat([d2l.ones(n)] * n), (n, n))" in library
    shown = {  # what readers see: each framework's own code (reverse_alias, simple, fluent)
        "pytorch": "return torch.cat([torch.ones(n)] * n).reshape((n, n))",
        "jax": "return jnp.concatenate([jnp.ones(n)] * n).reshape((n, n))",
    }
    code_shown = {
        str(p["data-pb-tab"]): "".join(pre.get_text() for pre in p.select("pre"))
        for p in soup.select("div.pb-panel")
        if "square_of_ones" in p.get_text()
    }
    for fw, code in shown.items():
        assert code in code_shown[fw], code_shown[fw]
