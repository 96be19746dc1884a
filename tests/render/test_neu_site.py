"""The 2026 d2l dialect in the site: cells anchored by their ids, `{.unnumbered}` headings,
Pandoc spans and divs in prose, and the pages only `_quarto.yml` lists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from polybook.render.sphinx.unnumbered import renumbered

from ..books import FENCE, build, write_book

CONFIG = "[project]\nname = neu\n\n[build]\ntabs = pytorch, jax\neval_notebook = False\n"
QUARTO = (
    "book:\n  chapters:\n    - index.qmd\n    - part: ch/index.qmd\n      chapters:\n"
    "        - ch/cells.qmd\n        - ch/listed.qmd\n"
    "    - part: more/index.qmd\n      chapters:\n        - more/last.qmd\n"
)


def cell(info: str, body: str) -> str:
    return f"{FENCE}{{.python .input{info}}}\n{body}\n{FENCE}\n\n"


LONG = "a-cell-id-longer-than-the-sixty-four-characters-a-notebook-allows-as-its-id"
CELLS = (
    "# Cells\n\n## First\n\nSee :numref:`sec_listed`.\n\n"
    + cell(" #setup", "import math")
    + cell(" #devices", "%%tab pytorch\nx = 1")
    + cell(" #devices", "%%tab jax\nx = 2")
    + cell(f" #{LONG}", "y = 1")
    + "## Resources {.unnumbered}\n\n### Inside\n\nThe [Motivation]{.kicker} comes"
    " [first]{.lead key=val}.\n\n::: {.callout-warning}\nCareful.\n:::\n\n"
    "::: {.aside}\nBeside.\n:::\n\n## After\n\nText.\n"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_book(
        tmp_path_factory.mktemp("neu") / "book",
        {
            "_quarto.yml": QUARTO,
            "index.md": f"# Book\n\n{FENCE}toc\n:numbered:\n\nch/index\n{FENCE}\n",
            "ch/index.md": f"# Chapter\n\n{FENCE}toc\ncells\n{FENCE}\n",
            "ch/cells.md": CELLS,
            "ch/listed.md": "# Listed\n:label:`sec_listed`\n\nOnly _quarto.yml lists it.\n",
            "more/index.md": "# More\n:label:`part_more`\n\nA part's page, in no toc.\n",
            "more/last.md": "# Last\n\n## Inside\n\nSee :numref:`sec_listed`.\n",
        },
        CONFIG,
    )
    assert build(root, "html") == 0
    return root / "_build" / "html"


def numbers(page: str) -> list[str]:
    """The section numbers and titles of a page's headings, as the site shows them."""
    found = re.findall(r"<h[1-4][^>]*>(.*?)<a class=\"headerlink", page, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", h).split()) for h in found]


@pytest.mark.slow
def test_cells_are_anchored_by_their_ids_in_each_framework(site: Path) -> None:
    page = (site / "ch" / "cells.html").read_text(encoding="utf-8")
    # A cell every framework shows alike: its id, and its id per framework.
    for ident in ("setup", "setup-pytorch", "setup-jax"):
        assert page.count(f'id="{ident}"') == 1, ident
    assert f'id="{LONG}"' in page  # too long for a notebook's id, not for the site's
    # Variants per framework: the id before the tab set, id-framework in each tab.
    before, tabset = page.split('<div class="pb-tabset" data-pb-kind="code"', 1)
    assert before.endswith('<span id="devices" class="pb-anchor"></span>')
    panels = re.findall(r'<div class="pb-panel"[^>]*data-pb-tab="(\w+)"', tabset)
    assert panels[:2] == ["pytorch", "jax"]
    jax_panel = tabset.split('data-pb-tab="jax"', 2)[2]
    assert 'id="devices-pytorch"' in tabset.split(jax_panel)[0]
    assert 'id="devices-jax"' in jax_panel


@pytest.mark.slow
def test_an_unnumbered_heading_takes_no_number_and_the_next_follows_on(site: Path) -> None:
    page = (site / "ch" / "cells.html").read_text(encoding="utf-8")
    assert numbers(page) == ["1. Cells", "1.1. First", "Resources", "Inside", "1.2. After"]
    assert "{.unnumbered}" not in page
    sidebar = (site / "ch" / "index.html").read_text(encoding="utf-8")
    assert "1.2. After" in " ".join(re.sub(r"<[^>]+>", " ", sidebar).split())


@pytest.mark.slow
def test_pandoc_spans_and_divs_in_prose_are_read(site: Path) -> None:
    page = (site / "ch" / "cells.html").read_text(encoding="utf-8")
    assert '<span class="kicker">Motivation</span>' in page
    assert '<span class="lead">first</span>' in page
    assert re.search(r'<div class="admonition warning">\s*<p class="admonition-title">', page)
    assert re.search(r'<div class="aside docutils container">\s*<p>Beside.</p>', page)
    assert not re.search(r"\]\{\.|:::", page)


@pytest.mark.slow
def test_a_page_only_quarto_lists_is_in_the_toc_and_numbered(site: Path) -> None:
    listed = (site / "ch" / "listed.html").read_text(encoding="utf-8")
    assert "2. Listed" in " ".join(re.sub(r"<[^>]+>", " ", listed).split())
    cells = (site / "ch" / "cells.html").read_text(encoding="utf-8")
    assert re.search(r'href="listed.html#sec-listed"[^>]*>.*?Section 2<', cells, re.S)


def text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


@pytest.mark.slow
def test_a_part_s_page_takes_no_number_and_chapters_count_on_across_parts(site: Path) -> None:
    part = (site / "ch" / "index.html").read_text(encoding="utf-8")
    assert numbers(part)[0] == "Chapter"
    last = (site / "more" / "last.html").read_text(encoding="utf-8")
    assert numbers(last) == ["3. Last", "3.1. Inside"]
    assert numbers((site / "more" / "index.html").read_text(encoding="utf-8")) == ["More"]
    # The site's toc: the parts' pages unnumbered, the chapters 1, 2, 3 across them.
    toc = text(last)
    assert "Chapter 1. Cells" in toc and "2. Listed More 3. Last" in toc
    assert not re.search(r"\d\. (Chapter|More)\b", toc)
    # :numref: of a chapter after a part's page: its number across parts.
    assert re.search(r'href="../ch/listed.html#sec-listed"[^>]*>.*?Section 2<', last, re.S)


def test_numbers_after_a_section_left_out_move_up() -> None:
    numbers = {"": (2,), "#a": (2, 1), "#b": (2, 2), "#b-x": (2, 2, 1), "#c": (2, 3)}
    numbers |= {"#c-x": (2, 3, 1)}
    assert renumbered(numbers, {"#b"}) == {
        "": (2,),
        "#a": (2, 1),
        "#b": (),
        "#b-x": (),
        "#c": (2, 2),
        "#c-x": (2, 2, 1),
    }
    assert set(renumbered(numbers, {""}).values()) == {()}
