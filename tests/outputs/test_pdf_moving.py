"""The PDF of a page whose captions and titles hold citations, references and formulas
(LaTeX writes those to the contents, the list of figures and the PDF's bookmarks), and of a
book whose ``[pdf]`` fonts are not installed: one small build for both."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Location
from polybook.pdf.cjk import CjkSettings, cjk_settings
from polybook.pdf.fonts import where_to_get

from ..books import FIXTURES, write_book
from .test_pdf import flat

CONFIG = """[project]
name = moving
title = Moving Arguments

[build]
tabs = pytorch
eval_notebook = false

[pdf]
bibfile = refs.bib
main_font = Source Serif Pro
mono_font = Inconsolata
"""
MAIN_FONT_LINE, MONO_FONT_LINE = 11, 12
INDEX = "# Moving Arguments\n\n```toc\n:numbered:\n\nchap/cited\n```\n"
FIGURE = (
    "![Boxes as :citet:`Doe.Roe.2020` drew them, after :cite:`Doe.Roe.2020`,"
    " in :numref:`sec_cited`, of $x^2_{i}$](../img/stack.svg)"
)
PAGE = r"""# Studied by :citet:`Doe.Roe.2020` in $\ell_2$
:label:`sec_cited`

## After :numref:`sec_cited` and :cite:`Doe.Roe.2020`

Words and `code`.

FIGURE
:label:`fig_cited`

: Sizes from :citet:`Doe.Roe.2020` and :cite:`Doe.Roe.2020`, see :numref:`fig_cited`, $\sqrt{a}$
:label:`tab_cited`

| name | width |
|------|-------|
| A4   | 210   |

See :numref:`tab_cited` and :numref:`fig_cited`.
"""


@dataclass(frozen=True)
class Built:
    pdf: Path
    code: int
    err: str


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    fixture = FIXTURES / "pdf_book"
    files: dict[str, str | bytes] = {
        "index.md": INDEX,
        "chap/cited.md": PAGE.replace("FIGURE", FIGURE),
        "refs.bib": (fixture / "refs.bib").read_bytes(),
        "img/stack.svg": (fixture / "img" / "stack.svg").read_bytes(),
    }
    root = write_book(tmp_path_factory.mktemp("pdf-moving") / "book", files, CONFIG)
    said: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("polybook").addHandler(handler)
    try:
        code = main(["--quiet", "--root", str(root), "build", "pdf"])
    finally:
        logging.getLogger("polybook").removeHandler(handler)
    return Built(root / "_build" / "pdf" / "moving-pytorch.pdf", code, "\n".join(said))


@pytest.mark.slow
def test_citations_references_and_formulas_in_captions_and_titles(built: Built) -> None:
    assert built.code == 0, built.err
    reader = PdfReader(built.pdf)
    text = flat(" ".join(page.extract_text() for page in reader.pages))
    chapter = "1 Studied by Doe and Roe (2020) in l2"
    section = "1.1 After Section 1 and (Doe and Roe, 2020)"
    assert text.count(chapter) == 2 and text.count(section) == 2  # the contents, the heading
    assert (
        "Fig. 1.1.1: Boxes as Doe and Roe (2020) drew them, after (Doe and Roe, 2020),"
        " in Section 1, of x2 i" in text
    )
    assert (
        "Table 1.1.1: Sizes from Doe and Roe (2020) and (Doe and Roe, 2020), see Fig. 1.1.1" in text
    )
    assert "See Table 1.1.1 and Fig. 1.1.1." in text
    bookmarks: list[Any] = list(reader.outline)
    assert bookmarks[0]["/Title"].startswith("Studied by Doe and Roe (2020) in")
    assert bookmarks[1][0]["/Title"] == "After Section 1 and (Doe and Roe, 2020)"
    # each citation is a link to the bibliography: two in titles, four in the captions
    cited = [
        annot.get_object()["/A"]["/D"]
        for page in reader.pages
        for annot in page.get("/Annots") or []
        if "/A" in annot.get_object()
        and str(annot.get_object()["/A"].get("/D")).startswith("cite.")
    ]
    assert len(cited) >= 6 and set(map(str, cited)) <= set(reader.named_destinations)


@pytest.mark.slow
def test_a_font_that_is_not_installed_is_a_warning_at_its_line(built: Built) -> None:
    assert built.code == 0, built.err
    assert (
        f"config.ini:{MAIN_FONT_LINE} [pytorch]: [pdf] main_font: the font “Source Serif Pro”"
        " is not installed (fontconfig does not list it): the PDF is set in FreeSerif instead;"
        " Adobe's Source Serif has no Debian package"
    ) in built.err
    # Inconsolata is not among the fonts `make pdf` installs
    assert (
        f"config.ini:{MONO_FONT_LINE} [pytorch]: [pdf] mono_font: the font “Inconsolata” is not"
        " installed (fontconfig does not list it): the PDF is set in DejaVu Sans Mono instead;"
        " Debian's fonts-inconsolata has it (`apt-get install fonts-inconsolata`)"
        " [polybook.pdf.font]"
    ) in built.err
    resources: list[Any] = [page["/Resources"] for page in PdfReader(built.pdf).pages]
    fonts = {
        str(font["/BaseFont"]).split("+")[-1].removesuffix("-Identity-H")
        for found in resources
        for font in (found.get("/Font") or {}).values()
    }
    assert {"FreeSerif", "DejaVuSansMono"} <= fonts, fonts
    # what the machine has is an input of the build: installing the font is not a no-op
    record = (built.pdf.parents[2] / "_build" / "latex" / "fonts.txt").read_text()
    assert "Inconsolata: False" in record.splitlines() and "FreeSerif: True" in record


def test_where_a_font_comes_from_on_debian() -> None:
    assert "fonts-noto-cjk" in where_to_get("Source Han Sans SC Medium")
    assert "Noto Sans CJK SC" in where_to_get("Source Han Sans SC Medium")
    assert "fonts-texgyre" in where_to_get("TeX Gyre Termes")
    assert where_to_get("A Font Nobody Made") == ""


def test_a_chinese_book_is_set_in_an_installed_chinese_font(tmp_path: Path) -> None:
    config = "[project]\nname = zh\nlang = zh\n\n[build]\ntabs = pytorch\n"
    root = write_book(tmp_path / "book", {"index.md": "# 书\n"}, config)
    book = load_config(root).book
    installed = {"notoserifcjksc", "sourcehansanssc"}
    found = cjk_settings(book, "pytorch", installed, xecjk=True)
    assert found.commands.splitlines() == [
        "\\setCJKmainfont{Noto Serif CJK SC}",
        "\\setCJKsansfont{Source Han Sans SC}",
        "\\setCJKmonofont{Source Han Sans SC}",
    ]
    assert found.diagnostics == () and found.elements == {}
    # xeCJK's own Fandol fonts
    assert cjk_settings(book, "pytorch", set(), xecjk=True) == CjkSettings()
    without = cjk_settings(book, "pytorch", installed, xecjk=False)  # Sphinx's xeCJK left out
    assert without.elements["fontenc"].startswith("\\usepackage{fontspec}")
    (warning,) = without.diagnostics
    assert warning.location == Location("config.ini", 3, "pytorch")
    assert "xeCJK, which is not installed (Debian's texlive-lang-chinese)" in warning.message
