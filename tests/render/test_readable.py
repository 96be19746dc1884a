"""References as students read them: numbered as the site numbers them, linked to it."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.nb import new_markdown_cell, new_notebook
from polybook.render.plain import Plain, plain_book
from polybook.source.numbering import numbering
from polybook.source.readable import Readable, read_citations

from ..books import FENCE, load_parsed, write_book

INDEX = f"""# Book

{FENCE}toc
:maxdepth: 1

preface
{FENCE}

{FENCE}toc
:numbered:

intro/index
{FENCE}
"""
CHAPTER = f"# Intro\n:label:`chap_intro`\n\n{FENCE}toc\na\nb\n{FENCE}\n"
PAGE_A = """# First
:label:`sec_first`

## Setup
:label:`subsec_setup`

![A caption over
two lines.](../img/x.svg)
:label:`fig_two`

Text
$$x = 1.$$
:eqlabel:`eq_one`

:Sizes of things
:label:`tab_sizes`

| a | b |
|---|---|
| 1 | 2 |
"""
PAGE_B = """# Second

![Unlabelled: not numbered.](../img/x.svg)

![Labelled.](../img/x.svg)

:label:`fig_second`

$$y$$
:eqlabel:`eq_second`

$$z$$ :eqlabel:`eq_third`
"""
PREFACE = (
    "# Preface\n:label:`sec_preface`\n\n![Before the chapters.](img/x.svg)\n:label:`fig_pre`\n"
)
BIB = """@article{He.2016, author = {He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing},
  title = {Deep Residual Learning}, year = {2016}}
@book{Goodfellow.2016, author = {Goodfellow, Ian and Bengio, Yoshua}, title = {DL},
  year = {2016}}
"""


def book(tmp_path: Path) -> Path:
    files = {
        "index.md": INDEX,
        "preface.md": PREFACE,
        "intro/index.md": CHAPTER,
        "intro/a.md": PAGE_A,
        "intro/b.md": PAGE_B,
        "refs.bib": BIB,
    }
    return write_book(tmp_path / "book", files, "[build]\ntabs = pytorch\n")


def test_labels_are_numbered_as_the_site_numbers_them(tmp_path: Path) -> None:
    root = book(tmp_path)
    found = numbering(load_parsed(load_config(root), Reporter()))
    shown = {label: (t.kind, t.number, t.page, t.anchor) for label, t in found.items()}
    assert shown == {
        "sec_preface": ("section", "", "preface", "sec-preface"),
        "fig_pre": ("figure", "1", "preface", "fig-pre"),  # no numbered toc lists it
        "chap_intro": ("section", "1", "intro/index", "chap-intro"),
        "sec_first": ("section", "1.1", "intro/a", "sec-first"),
        "subsec_setup": ("section", "1.1.1", "intro/a", "subsec-setup"),
        "fig_two": ("figure", "1.1.1", "intro/a", "fig-two"),
        "eq_one": ("equation", "1.1.1", "intro/a", "equation-eq-one"),
        "tab_sizes": ("table", "1.1.1", "intro/a", "tab-sizes"),
        "fig_second": ("figure", "1.2.1", "intro/b", "fig-second"),  # the unlabelled: none
        "eq_second": ("equation", "1.2.1", "intro/b", "equation-eq-second"),
        "eq_third": ("equation", "1.2.2", "intro/b", "equation-eq-third"),  # on its line
    }
    assert found["fig_two"].title == "A caption over two lines."


def test_roles_read_as_text_linked_to_the_site_and_code_stays_as_written(
    tmp_path: Path,
) -> None:
    root = book(tmp_path)
    targets = numbering(load_parsed(load_config(root), Reporter()))
    refs = Readable(
        targets,
        read_citations(root / "refs.bib"),
        lambda page, anchor: f"https://site/{page}.html" + (f"#{anchor}" if anchor else ""),
    )
    text = (
        "See :numref:`sec_first`, :numref:`fig_two`, :numref:`tab_sizes`, :eqref:`eq_one`,\n"
        ":ref:`sec_first`, :numref:`Part %s <chap_intro>`, :numref:`fig_gone`,"
        " :cite:`He.2016,Goodfellow.2016` and :citet:`He.2016`; ``:numref:`sec_first` ``.\n"
        f"{FENCE}\n:eqref:`eq_one`\n{FENCE}"
    )
    assert refs.text(text) == (
        "See [Section 1.1](https://site/intro/a.html#sec-first),"
        " [Fig. 1.1.1](https://site/intro/a.html#fig-two),"
        " [Table 1.1.1](https://site/intro/a.html#tab-sizes),"
        " [(1.1.1)](https://site/intro/a.html#equation-eq-one),\n"
        "[First](https://site/intro/a.html#sec-first),"
        " [Part 1](https://site/intro/index.html#chap-intro), Fig. “gone”,"
        " [(He et al., 2016; Goodfellow and Bengio, 2016)](https://site/references.html)"
        " and [He et al. (2016)](https://site/references.html); ``:numref:`sec_first` ``.\n"
        f"{FENCE}\n:eqref:`eq_one`\n{FENCE}"
    )
    plain = Readable(targets)  # a book not published: the words, no links
    assert plain.text("As :eqref:`eq_second` says.") == "As (1.2.1) says."
    assert plain.text("Two backticks: :eqref:``eq_third``.") == "Two backticks: (1.2.2)."


def test_a_notebook_cell_drops_rst_and_labels_and_reads_its_references(tmp_path: Path) -> None:
    root = book(tmp_path)
    refs = Readable(numbering(load_parsed(load_config(root), Reporter())))
    cell = (
        "# First\n:label:`sec_first`\n\nSee :numref:`fig_two`.\n\n"
        f"{FENCE}eval_rst\n.. raw:: html\n   :file: front.html\n{FENCE}\n\nAfter."
    )
    assert Plain(refs, root).markdown(cell, "intro/a.md").text == (
        "# First\n\nSee Fig. 1.1.1.\n\n\nAfter."
    )


def test_a_notebook_reads_as_plain_markdown_its_figures_attached_or_on_the_site(
    tmp_path: Path,
) -> None:
    root = book(tmp_path)
    (root / "img").mkdir()
    (root / "img" / "x.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    parsed = load_parsed(load_config(root), Reporter())
    plain = plain_book(parsed, "", root / "refs.bib", "pytorch")
    nb = new_notebook()
    nb.cells += [
        new_markdown_cell(
            "# First\n:label:`sec_first`\n\n![A caption.](../img/x.svg)\n:width:`400px`\n\n"
            "As :citet:`He.2016` show, see :numref:`fig_two`.",
            "a",
        ),
        new_markdown_cell(f"{FENCE}toc\n:maxdepth: 2\n\na\nb\n{FENCE}", "b"),
    ]
    made, shown = plain.notebook(nb, "intro/a.md")
    first, toc, references = made.cells
    assert first.source == (
        "# First\n\n![A caption.](attachment:img-x.svg)\n\nAs He et al. (2016) show, see"
        " Fig. 1.1.1."
    )
    assert list(first.attachments["img-x.svg"]) == ["image/svg+xml"]
    assert toc.source == "- [1.1 First](a.ipynb)\n- [1.2 Second](b.ipynb)"
    assert references.source == (
        "## References\n\n- He, Kaiming; Zhang, Xiangyu; Ren, Shaoqing (2016). Deep Residual"
        " Learning."
    )
    assert shown == ["img/x.svg"]
    site = plain_book(parsed, "https://site/", None, "jax")
    linked = site.notebook(nb, "intro/a.md")[0].cells[0]
    assert "![A caption.](https://site/_notebooks/img/x.svg)" in linked.source
    assert "[Fig. 1.1.1](https://site/intro/a.html?tab=jax#fig-two)" in linked.source
    assert "attachments" not in linked
