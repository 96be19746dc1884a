"""The 2026 d2l dialect: pages whose cells carry ids (`{.python .input #name}`), a
``<!-- slides -->`` section that is not page text, bold in parentheses, fences that show
Markdown."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.config.declarations import shipped
from polybook.diagnostics import Reporter
from polybook.render.myst import prose_to_myst
from polybook.source.model import CodeCell, Document, Prose, Toc
from polybook.source.numbering import numbering
from polybook.source.parse import parse
from polybook.source.split import split

from ..books import FENCE, load_parsed, write_book

TABS = ("pytorch", "jax")


def page(text: str) -> Document:
    return parse(text, "p.md", TABS)


def cell(info: str, body: str) -> str:
    return f"{FENCE}{{.python .input{info}}}\n{body}\n{FENCE}\n\n"


def test_an_untagged_cell_is_every_framework_s_on_a_page_naming_its_cells() -> None:
    doc = page(cell(" #setup", "import math") + cell(" #use", "%%tab jax\nx = 1"))
    assert doc.blocks[0] == CodeCell(TABS, "import math", 2, "setup")
    assert doc.blocks[1] == CodeCell(("jax",), "x = 1", 7, "use")


def test_an_untagged_cell_stays_the_first_framework_s_on_a_d2lbook_page() -> None:
    doc = page(cell("", "import math") + cell("", "%%tab jax\nx = 1"))
    assert doc.blocks[0] == CodeCell(("pytorch",), "import math", 2)


def test_a_cell_s_id_names_it_in_every_framework_s_notebook() -> None:
    doc = page(
        "# Title\n\n"
        + cell(" #devices", "%%tab pytorch\nx = 1")
        + cell(" #devices", "%%tab jax\nx = 2")
        + cell(" #b0", "y = 3")  # polybook's own form: not taken
        + cell(" #devices", "z = 4")  # taken in both frameworks: not taken again
    )
    names = [doc.cell_id(index) for index in range(len(doc.blocks))]
    assert names == ["b0", "devices", "devices", "b3", "b4"]
    for name in TABS:
        notebook = split(doc, shipped(name), TABS)
        ids = [c.id for c in notebook.cells]
        assert ids == ["b0", "devices", "b3", "b4"]


def test_the_slides_section_is_not_page_text() -> None:
    text = (
        "# Title\n\nProse.\n\n"
        + cell(" #a", "x = 1")
        + '<!-- slides -->\n\n::: {.slide title="Motivation"}\n@a\n:::\n'
    )
    doc = page(text)
    assert doc.blocks == (Prose("# Title\n\nProse.", 1), CodeCell(TABS, "x = 1", 6, "a"))
    assert doc.slides == '::: {.slide title="Motivation"}\n@a\n:::'
    assert doc.slides_line == 9


def test_a_slides_comment_in_code_is_code() -> None:
    doc = page(cell("", "html = '''\n<!-- slides -->\n'''") + "After.\n")
    assert doc.slides == ""
    assert doc.blocks[-1] == Prose("After.", 7)


def test_bold_in_parentheses_is_no_slide_mark() -> None:
    doc = page("Detectors (**SIFT**, 2004) and (**SURF**, a **fast** one).\n")
    assert doc.blocks == (Prose("Detectors (**SIFT**, 2004) and (**SURF**, a **fast** one).", 1),)
    assert doc.warnings == ()


def test_a_page_with_slides_reads_parenthesised_bold_as_text() -> None:
    doc = page("The optimizer (**Adam**) and [**this**].\n\n<!-- slides -->\n\nSlides.\n")
    assert doc.blocks == (Prose("The optimizer (**Adam**) and this.", 1),)
    assert doc.warnings == ()


def test_a_markdown_fence_may_show_a_cell_s_opener() -> None:
    doc = page(f"{FENCE}markdown\n# Chapter\n\n{FENCE}{{.python .input #x}}\nx = 1\n{FENCE}\n")
    assert len(doc.blocks) == 1 and isinstance(doc.blocks[0], Prose)


def test_quarto_s_chapter_list_orders_the_book_and_its_tocs(tmp_path: Path) -> None:
    quarto = (
        "book:\n  chapters:\n    - index.qmd\n    - part: ch/index.qmd\n      chapters:\n"
        "        - ch/saves.qmd\n        - ch/uses.qmd\n"
    )
    index = f"# Book\n\n{FENCE}toc\nch/index\n{FENCE}\n"
    chapter = f"# Chapter\n\n{FENCE}toc\nuses\nsaves\n{FENCE}\n"
    root = write_book(
        tmp_path,
        {
            "_quarto.yml": quarto,
            "index.md": index,
            "ch/index.md": chapter,
            "ch/uses.md": "# Uses\n",
            "ch/saves.md": "# Saves\n",
        },
    )
    book = load_parsed(load_config(root), Reporter())
    assert [doc.path for doc in book.documents] == [
        "index.md",
        "ch/index.md",
        "ch/saves.md",
        "ch/uses.md",
    ]
    (toc,) = [b for b in book.documents[1].blocks if isinstance(b, Toc)]
    assert (toc.entries, toc.entry_lines) == (("saves", "uses"), (5, 4))


def test_a_heading_s_unnumbered_mark_is_left_off() -> None:
    doc = page("# Title\n\n## Further Reading {.unnumbered}\n\n## Notes {-}\n\nText {.x}\n")
    assert doc.blocks == (Prose("# Title\n\n## Further Reading\n\n## Notes\n\nText {.x}", 1),)
    assert doc.unnumbered == (3, 5)


def test_pandoc_notes_are_admonitions_and_other_divs_containers() -> None:
    text = (
        '::: {.d2l-note}\nA note.\n:::\n\n::: {.callout-tip title="Two clocks"}\nTip.\n:::\n\n'
        "::: {.cols .vc}\nText.\n:::"
    )
    lines = prose_to_myst(text, 10, "p.md", Reporter())
    assert list(zip(lines.origin, lines.text, strict=True)) == [
        (10, ":::{note}"),
        (11, "A note."),
        (12, ":::"),
        (13, ""),
        (14, ":::{admonition} Two clocks"),
        (14, ":class: tip"),
        (15, "Tip."),
        (16, ":::"),
        (17, ""),
        (18, ":::{container} cols vc"),
        (19, "Text."),
        (20, ":::"),
    ]


def test_an_unnumbered_heading_is_numbered_nowhere_and_the_next_follows_on(
    tmp_path: Path,
) -> None:
    page_text = (
        "# Page\n\n## One\n:label:`sec_one`\n\n## Notes {.unnumbered}\n:label:`sec_notes`\n\n"
        "### Inside\n:label:`sec_inside`\n\n## Two\n:label:`sec_two`\n"
    )
    index = f"# Book\n\n{FENCE}toc\n:numbered:\n\npage\n{FENCE}\n"
    root = write_book(tmp_path, {"index.md": index, "page.md": page_text})
    found = numbering(load_parsed(load_config(root), Reporter()))
    shown = {label: found[label].number for label in ("sec_one", "sec_notes", "sec_inside")}
    assert shown | {"sec_two": found["sec_two"].number} == {
        "sec_one": "1.1",
        "sec_notes": "",
        "sec_inside": "",
        "sec_two": "1.2",
    }


def test_an_unnumbered_heading_gets_its_class_and_keeps_its_label() -> None:
    lines = prose_to_myst(
        "## Notes\n:label:`sec_notes`\n\nText.", 7, "p.md", Reporter(), None, (), (7,)
    )
    assert lines.text == ["(sec_notes)=", "{.pb-unnumbered}", "## Notes", "", "Text."]


def test_a_quarto_part_s_page_takes_no_number_and_chapters_count_on_across_parts(
    tmp_path: Path,
) -> None:
    quarto = (
        "book:\n  chapters:\n    - index.qmd\n    - part: one/index.qmd\n      chapters:\n"
        "        - one/a.qmd\n    - part: two/index.qmd\n      chapters:\n        - two/b.qmd\n"
    )
    index = f"# Book\n\n{FENCE}toc\n:numbered:\n\none/index\n{FENCE}\n"
    root = write_book(
        tmp_path,
        {
            "_quarto.yml": quarto,
            "index.md": index,
            "one/index.md": f"# Part One\n:label:`part_one`\n\n{FENCE}toc\na\n{FENCE}\n",
            "one/a.md": "# A\n:label:`chap_a`\n\n## A1\n:label:`sec_a1`\n",
            "two/index.md": "# Part Two\n:label:`part_two`\n",
            "two/b.md": "# B\n:label:`chap_b`\n",
        },
    )
    found = numbering(load_parsed(load_config(root), Reporter()))
    labels = ("part_one", "chap_a", "sec_a1", "part_two", "chap_b")
    assert {label: found[label].number for label in labels} == {
        "part_one": "",
        "chap_a": "1",
        "sec_a1": "1.1",
        "part_two": "",
        "chap_b": "2",
    }
