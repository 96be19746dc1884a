"""The 2026 d2l dialect: pages whose cells carry ids (`{.python .input #name}`), a
``<!-- slides -->`` section that is not page text, bold in parentheses, fences that show
Markdown."""

from __future__ import annotations

from polybook import frameworks
from polybook.source.model import CodeCell, Document, Prose
from polybook.source.parse import parse
from polybook.source.split import split

FENCE = "`" * 3
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
        notebook = split(doc, frameworks.get(name), TABS)
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
