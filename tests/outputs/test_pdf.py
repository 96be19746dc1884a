"""A PDF per framework, read back as text (pypdf), and LaTeX errors at the Markdown line.

The shipped book is built into four PDFs once, in a copy whose execution cache starts as a
copy of the repository's (nothing runs again when that one is warm). A small book without
outputs covers what the shipped one lacks: equations, a captioned table, the logo, a page
that LaTeX cannot typeset, and the site's links to the PDFs.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Location, Reporter
from polybook.nb import copy_notebook, reads, writes
from polybook.pdf.log import latex_diagnostic, missing_glyphs
from polybook.pdf.pages import pdf_pages
from polybook.pdf.sphinx_latex import resolve_markers
from polybook.source.book import load_book
from polybook.source.split import split_book

from ..books import REPO, copy_fixture, headings, pages_book, shipped_with_cache

CHAPTER = "chapter_builders-guide"
FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
IMPORTS = {
    "pytorch": "from d2l import torch as d2l",
    "mxnet": "from d2l import mxnet as d2l",
    "jax": "from d2l import jax as d2l",
    "tensorflow": "from d2l import tensorflow as d2l",
}
# A sentence of each framework's own prose (`:begin_tab:`) on the GPUs page.
TAB_PROSE = {
    "pytorch": "tells whether PyTorch found a usable GPU",
    "mxnet": "MXNet publishes separate packages for each CUDA version",
    "jax": "JAX needs its CUDA plugin",
    "tensorflow": "package never can",
}


def flat(text: str) -> str:
    """Text as compared: ligatures undone, quotes plain, whitespace single spaces."""
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    return " ".join(text.split())


def squeezed(text: str) -> str:
    """Prose as compared across line breaks and hyphenation: no spaces, no hyphens."""
    return re.sub(r"[\s\-]", "", flat(text))


def pages_text(pdf: Path) -> list[str]:
    return [flat(page.extract_text()) for page in PdfReader(pdf).pages]


def build(root: Path, target: str, *options: str) -> int:
    return main(["--quiet", "--root", str(root), "build", target, *options])


# ---- the shipped book -------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The text of each framework's PDF of the shipped book."""
    root = shipped_with_cache(tmp_path_factory.mktemp("pdf") / "book")
    shutil.copy(load_config(REPO).pdf.bibfile, root)
    assert build(root, "pdf", "--tab", "all") == 0
    pdfs = {fw: root / "_build" / "pdf" / f"builders-guide-{fw}.pdf" for fw in FRAMEWORKS}
    return {fw: "\n".join(pages_text(path)) for fw, path in pdfs.items()}


def toc_entries(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    block = text.split("```toc", 1)[1].split("```", 1)[0]
    return [e.strip() for e in block.splitlines() if e.strip() and not e.startswith(":")]


@pytest.mark.slow
def test_each_pdf_has_every_heading_with_its_number(shipped: dict[str, str]) -> None:
    chapter, _ = headings(REPO / CHAPTER / "index.md")
    for fw, text in shipped.items():
        assert f"1 {flat(chapter)}" in text and "Chapter 1" in text, fw
        for number, entry in enumerate(toc_entries(REPO / CHAPTER / "index.md"), start=1):
            title, subs = headings(REPO / CHAPTER / f"{entry}.md")
            # in the contents and as the heading (running heads read "1.8. GPUs")
            assert text.count(f"1.{number} {flat(title)}") >= 2, (fw, title)
            for sub_number, sub in enumerate(subs, start=1):
                assert f"1.{number}.{sub_number} {flat(sub)}" in text, (fw, sub)


@pytest.mark.slow
def test_each_pdf_holds_its_frameworks_code_and_prose_only(shipped: dict[str, str]) -> None:
    for fw, text in shipped.items():
        for other in FRAMEWORKS:
            assert (IMPORTS[other] in text) == (other == fw), (fw, other)
            assert (squeezed(TAB_PROSE[other]) in squeezed(text)) == (other == fw), (fw, other)


@pytest.mark.slow
def test_each_pdf_has_the_figure_the_citations_and_the_gpu_notes(
    shipped: dict[str, str],
) -> None:
    for fw, text in shipped.items():
        assert "Fig. 1.8.1: Each device computes only on its own memory" in text, fw
        body, bibliography = text.rsplit("Bibliography", 1)
        assert "(Paszke et al., 2019)" in body, fw
        assert "Paszke.Gross.Massa" not in text, fw
        assert squeezed("PyTorch: an imperative style, high-performance") in squeezed(
            bibliography
        ), fw
        assert "Note: needs 2 GPUs" in body, fw  # the badge of the cells not run here


# ---- a small book: equations, tables, the logo, links, errors ----------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pdf-small") / "book"
    copy_fixture(root, "pdf_book")
    assert build(root, "pdf") == 0
    return root


def small_pdf(root: Path, fw: str) -> Path:
    return root / "_build" / "pdf" / f"pdfbook-{fw}.pdf"


@pytest.mark.slow
def test_numbered_equations_tables_figures_and_citations(small: Path) -> None:
    text = "\n".join(pages_text(small_pdf(small, "pytorch")))
    assert "Table 1.1.1: Paper sizes in millimetres" in text
    assert "Fig. 1.1.1: Two boxes side by side" in text
    assert "Section 1.2, has the equations" in text  # :numref:
    assert text.count("(1.2.1)") >= 2 and text.count("(1.2.2)") >= 2  # number and :eqref:
    assert "(Doe and Roe, 2020)" in text
    assert "A study of printed notebooks" in text.rsplit("Bibliography", 1)[1]


@pytest.mark.slow
def test_an_unnumbered_heading_takes_no_number_and_the_next_follows_on(small: Path) -> None:
    text = "\n".join(pages_text(small_pdf(small, "pytorch")))
    assert re.search(r"1\.2\.2\s+Last Words", text)
    assert "Further Reading" in text
    assert not re.search(r"1\.2\.\d\s+Further Reading|\{\.unnumbered\}", text)


@pytest.mark.slow
def test_references_are_working_internal_links(small: Path) -> None:
    reader = PdfReader(small_pdf(small, "pytorch"))
    named = set(reader.named_destinations)
    targets = []
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            link = annot.get_object()
            action = link.get("/A")
            if link.get("/Subtype") == "/Link" and action and action.get("/S") == "/GoTo":
                targets.append(str(action["/D"]))
    assert len(targets) >= 8  # numref, eqref, cite (twice each), the contents
    assert set(targets) <= named


@pytest.mark.slow
def test_one_frameworks_code_and_prose_unicode_and_wrapped_lines(small: Path) -> None:
    texts = {fw: "\n".join(pages_text(small_pdf(small, fw))) for fw in ("pytorch", "jax")}
    assert "torch_only_total" in texts["pytorch"] and "torch_only_total" not in texts["jax"]
    assert "jax_only_total" in texts["jax"] and "jax_only_total" not in texts["pytorch"]
    assert "Prose that only PyTorch readers see." in texts["pytorch"]
    assert "Prose that only JAX readers see." not in texts["pytorch"]
    for fw, text in texts.items():
        assert text.count("shared_line = 'every framework shows this once'") == 1, fw
        assert flat("┌──┐ │ab│ └──┘ 3 × 4 … done") in text, fw
        log = (small / "_build" / "latex" / fw / "tex" / f"pdfbook-{fw}.log").read_text()
        assert "Missing character" not in log, fw
        assert "Overfull \\hbox" not in log, fw  # the long line is wrapped


@pytest.mark.slow
def test_the_title_page_has_the_project_and_the_logo(small: Path) -> None:
    first = PdfReader(small_pdf(small, "jax")).pages[0]
    text = flat(first.extract_text())
    for part in ("A Book in Print", "Release 2.1", "JAX", "Test Author"):
        assert part in text
    resources = first["/Resources"].get_object()
    assert isinstance(resources, DictionaryObject) and resources.get("/XObject")  # the logo


@pytest.mark.slow
def test_the_site_links_each_pdf_and_hides_what_was_not_built(small: Path, tmp_path: Path) -> None:
    root = tmp_path / "book"
    shutil.copytree(small, root)
    small_pdf(root, "jax").unlink()
    assert build(root, "html") == 0
    page = (root / "_build" / "html" / "chap" / "layout.html").read_text(encoding="utf-8")
    links = re.findall(r'<a class="pb-pdf" data-pb-follow="(\w+)" href="([^"]+)"', page)
    assert links == [("pytorch", "../_pdf/pdfbook-pytorch.pdf")]
    linked = root / "_build" / "html" / "_pdf" / "pdfbook-pytorch.pdf"
    assert linked.read_bytes() == small_pdf(root, "pytorch").read_bytes()
    small_pdf(root, "pytorch").unlink()
    assert build(root, "html") == 0
    page = (root / "_build" / "html" / "chap" / "layout.html").read_text(encoding="utf-8")
    assert "pb-pdf" not in page and not linked.exists()


@pytest.mark.slow
def test_a_latex_error_is_located_and_keeps_the_last_good_pdf(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "book"
    shutil.copytree(small, root)
    page = root / "chap" / "math.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "\nA broken equation:\n\n$$\\undefinedmacro{x} + 1$$\n")
    line = len(text.splitlines()) + 4
    good = {fw: small_pdf(root, fw).read_bytes() for fw in ("pytorch", "jax")}
    capsys.readouterr()
    assert build(root, "pdf") == 1
    err = capsys.readouterr().err
    for fw, before in good.items():
        found = re.search(
            rf"chap/math\.md:{line} \[{fw}\]: LaTeX error \(pdfbook-{fw}\.tex:\d+\): "
            r"Undefined control sequence\.\n(.*\n)*?.*\\undefinedmacro.*\[polybook\.pdf\.latex\]",
            err,
        )
        assert found, err
        assert small_pdf(root, fw).read_bytes() == before
    assert sorted(p.name for p in (root / "_build" / "pdf").iterdir()) == [
        "pdfbook-jax.pdf",
        "pdfbook-pytorch.pdf",
    ]


# ---- units: markers in the LaTeX, the log read back --------------------------------------

MARK = "\x00PBchap/a.md:3\x00"


def test_markers_sit_on_lines_of_their_own_where_tex_reads_the_same() -> None:
    assert resolve_markers("A\n" + MARK + "\nB") == "A\n%PB chap/a.md:3\n\nB"
    assert resolve_markers("A" + MARK + "\nB") == "A\n%PB chap/a.md:3\nB"
    assert resolve_markers("\\label{x}" + MARK + "\\begin{equation}") == (
        "\\label{x}%\n%PB chap/a.md:3\n\\begin{equation}"
    )
    assert resolve_markers("A" + MARK + " B") == "A B"  # a line's start would drop the space
    assert resolve_markers("A\\" + MARK + "%B") == "A\\%B"  # "%" would be escaped
    assert resolve_markers("\x00PBold.md:1\x00" + MARK + "x") == "%PB chap/a.md:3\nx"


TEX = [
    "\\documentclass{report}",
    "\\usepackage{fontspec}",
    "\\begin{document}",
    "%PB chap/a.md:10",
    "",
    "\\sphinxAtStartPar",
    "first line,",
    "second \\(\\bad\\) line",
    "%PB chap/a.md:14",
    "\\section{Title \\badtitle}",
    "\\begin{equation*}",
    "\\undefined",
    "\\end{equation*}",
    "snow \u2603",
    "\\end{document}",
]


def error_at(tmp_path: Path, log: str) -> str:
    tex = tmp_path / "book-jax.tex"
    tex.write_text("\n".join(TEX) + "\n", encoding="utf-8")
    return str(latex_diagnostic(log, tex, "jax", "latexmk: failed"))


def test_the_first_error_of_the_log_is_traced_to_the_markdown_line(tmp_path: Path) -> None:
    log = (
        "(./book-jax.tex\n./book-jax.tex:8: Undefined control sequence.\n"
        "l.8 second \\(\\bad\n              \\) line\n"
        "Here is how much of TeX's memory you used:\n"
        "./book-jax.tex:12: Undefined control sequence.\n"
    )
    message = error_at(tmp_path, log)
    assert message.startswith(
        "chap/a.md:11 [jax]: LaTeX error (book-jax.tex:8): Undefined control sequence.\n"
        "    l.8 second \\(\\bad\n"
    )
    assert message.endswith("\\) line [polybook.pdf.latex]") and "memory" not in message
    display = "./book-jax.tex:13: Undefined control sequence.\nl.13 \\end{equation*}\n\n"
    assert error_at(tmp_path, display).startswith("chap/a.md:14 [jax]: LaTeX error (book-jax")


def test_errors_outside_the_body_name_the_config_or_the_text(tmp_path: Path) -> None:
    font = './book-jax.tex:2: Package fontspec Error: The font "Nope" cannot be found.\n'
    assert error_at(tmp_path, font).startswith(
        "config.ini [jax]: LaTeX error in the preamble ([pdf] fonts, logo) (book-jax.tex:2)"
    )
    toc = "./book-jax.toc:3: Undefined control sequence.\nl.3 ...{1.1}Title \\badtitle\n"
    assert error_at(tmp_path, toc).startswith("chap/a.md:14 [jax]: LaTeX error (book-jax.toc:3)")
    assert error_at(tmp_path, "no error here\n") == (
        "book-jax.tex [jax]: LaTeX failed: latexmk: failed [polybook.pdf.latex]"
    )


def test_a_missing_glyph_is_a_warning_at_its_first_use(tmp_path: Path) -> None:
    tex = tmp_path / "book-jax.tex"
    tex.write_text("\n".join(TEX) + "\n", encoding="utf-8")
    log = "Missing character: There is no \u2603 (U+2603) in font DejaVuSansMono!\n" * 2
    (found,) = missing_glyphs(log, tex, "jax")
    assert found.location == Location("chap/a.md", 14, "jax")
    assert found.subtype == "pdf.glyph" and "U+2603" in found.message


def test_a_font_lacking_a_script_is_one_warning(tmp_path: Path) -> None:
    tex = tmp_path / "book-jax.tex"
    tex.write_text("\n".join(TEX) + "\n", encoding="utf-8")
    chars = [chr(0x2603 + n) for n in range(20)]
    log = "".join(
        f"Missing character: There is no {c} (U+{ord(c):04X}) in font X!\n" for c in chars
    )
    (found,) = missing_glyphs(log, tex, "jax")
    assert found.location == Location("chap/a.md", 14, "jax")
    assert "the font X has no glyph for 20 characters: ☃ (U+2603) here" in found.message


def test_a_pdf_page_is_one_frameworks_with_plain_text_for_html_outputs(tmp_path: Path) -> None:
    root = tmp_path / "book"
    copy_fixture(root, "pdf_book")
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    executed = {
        (path, fw): nb
        for fw, nbs in split_book(book, config.build.tabs, reporter).items()
        for path, nb in nbs
    }
    nb = copy_notebook(executed[("chap/layout.md", "pytorch")])  # the split one is kept
    cell = next(c for c in nb.cells if "torch_only_total" in c.source)
    html = {"text/html": "<table><tr><td>3</td></tr></table>", "text/plain": "3 rows"}
    cell.outputs = [{"output_type": "display_data", "data": html, "metadata": {}}]
    executed[("chap/layout.md", "pytorch")] = reads(writes(nb))
    pages = {
        p.docname: p for p in pdf_pages(book, executed, "pytorch", 10**6, reporter, [], 0, True)
    }
    layout = pages["chap/layout"]
    cells = [c for group in layout.cells.values() for c in group["cells"]]
    assert [o["type"] for c in cells for o in c["outputs"]] == ["text"]
    assert "jax_only_total" not in json.dumps(layout.cells)
    assert "Prose that only PyTorch readers see." in layout.text
    assert "Prose that only JAX readers see." not in layout.text
    assert pages["index"].text.rstrip().endswith("```{bibliography}\n```")
    assert reporter.errors == []


@pytest.mark.slow
def test_a_book_without_a_release_gets_its_title_page(tmp_path: Path) -> None:
    config = "[project]\nname = norel\ntitle = No Release\nrelease =\n[build]\ntabs = pytorch\n"
    config += "eval_notebook = false\n"
    root = pages_book(tmp_path / "book", {"words": "Some words.\n"}, config)
    assert build(root, "pdf") == 0
    first = pages_text(root / "_build" / "pdf" / "norel-pytorch.pdf")[0]
    assert "No Release" in first and "PyTorch" in first
    assert "Release" not in first.replace("No Release", "")
