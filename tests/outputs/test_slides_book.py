"""Books in d2l format read exactly as their authors meant, and get their slides.

The fixture (``fixtures/slides_book``) uses every construct d2lbook's books use: slide marks
of the four forms, spanning lines, around inline and display math, in lists, a table and a
heading, a bold link in brackets; ``#@tab`` lines inside cells and ``# %%tab``; a figure
whose caption spans lines, an equation label after math that continues a paragraph, a table
caption holding a citation; ``.. raw:: html`` with ``:file:``. It is built as slides,
students' notebooks and the site (both kernels run); the shipped book is built the same way
without executing. No output shows a reader d2lbook's source syntax.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main
from polybook.nb import reads

from ..books import FIXTURES, copy_fixture, copy_shipped
from ..browser import file_url, offline_page
from ..golden import check_golden

pytestmark = pytest.mark.slow
GOLDEN = FIXTURES / "slides_golden"
# What a reader must never see: d2lbook's marks, tab lines, roles and Sphinx's "??".
PROSE_SYNTAX = (
    *("[**", "**]", "(**", "**)", "~~", ":numref:", ":eqref:", ":ref:`", ":cite:"),
    *(":label:", ":eqlabel:", ":begin_tab:", ":end_tab:", "eval_rst", "??"),
)
CODE_SYNTAX = re.compile(r"^\s*(?:#\s*@tab|%%tab|#\s*%%tab)\b", re.M)
MARKED_BOLD = re.compile(r"[\[(]<strong>|</strong>[\])]")  # `[**x**]` shown as bold
TARGETS = ("slides", "notebooks", "html")


def build_all(root: Path) -> list[int]:
    return [main(["--quiet", "--root", str(root), "build", target]) for target in TARGETS]


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture(tmp_path_factory.mktemp("slides") / "book", "slides_book")
    assert build_all(root) == [0, 0, 0]
    return root


def html_problems(path: Path) -> Iterator[str]:
    raw = path.read_text(encoding="utf-8")
    for found in MARKED_BOLD.findall(raw):
        yield f"{path.name}: marked text shown as {found!r}"
    soup = BeautifulSoup(raw, "html.parser")
    for element in soup(["script", "style"]):
        element.decompose()
    for code in soup.find_all("pre"):
        if CODE_SYNTAX.search(code.get_text()):
            yield f"{path.name}: a tab line in code: {code.get_text()[:80]!r}"
        code.decompose()
    text = soup.get_text(" ")
    for syntax in PROSE_SYNTAX:
        if syntax in text:
            at = text.index(syntax)
            yield f"{path.name}: {syntax!r} in {text[max(0, at - 60) : at + 40]!r}"


def notebook_problems(path: Path) -> Iterator[str]:
    nb = reads(path.read_text(encoding="utf-8"))
    for cell in nb.cells:
        if cell.cell_type == "code":
            if CODE_SYNTAX.search(cell.source):
                yield f"{path.name}: a tab line in code: {cell.source[:80]!r}"
            continue
        # Code spans and fences hold what they show; `[**text**](url)` is a bold link.
        prose = re.sub(r"(?s)```.*?```|`[^`\n]*`|\[\*\*[^\]\n]*\*\*\]\(", "", cell.source)
        for syntax in PROSE_SYNTAX:
            if syntax in prose:
                yield f"{path.name}: {syntax!r} in {cell.source[:120]!r}"


def scan(root: Path) -> list[str]:
    """Every problem of every page, student notebook and deck the builds wrote."""
    build = root / "_build"
    pages = [p for p in (build / "html").rglob("*.html") if "_static" not in p.parts]
    pages += [p for p in (build / "slides").rglob("*.html") if "_static" not in p.parts]
    notebooks = [*(build / "notebooks").rglob("*.ipynb"), *(build / "slides").rglob("*.ipynb")]
    assert pages and notebooks
    problems = [p for page in pages for p in html_problems(page)]
    return problems + [p for nb in notebooks for p in notebook_problems(nb)]


def test_no_source_syntax_reaches_a_reader_of_the_fixture(book: Path) -> None:
    assert scan(book) == []
    basics = (book / "_build/html/chapter/basics.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(basics, "html.parser")
    assert soup.select_one("a[href='https://example.org/guide'] strong") is not None
    numbers = [span.get_text() for span in soup.select("span.caption-number")]
    assert numbers[:2] == ["Fig. 1.1.1 ", "Table 1.1.1 "]
    assert soup.select_one("div#equation-eq-loss span.eqno") is not None
    front = (book / "_build/html/index.html").read_text(encoding="utf-8")
    assert "Welcome to the front page." in front  # raw html :file:, relative to the page


def test_each_deck_is_its_golden(book: Path) -> None:
    decks = sorted(
        p for p in (book / "_build/slides").rglob("*") if p.suffix in (".ipynb", ".html")
    )
    names = [p.relative_to(book / "_build/slides").as_posix() for p in decks]
    assert [n for n in names if not n.startswith("_static/")] == [
        f"{fw}/chapter/{page}.{kind}"
        for fw in ("jax", "pytorch")
        for page in ("basics", "index", "models")
        for kind in ("html", "ipynb")
    ]  # the section without marks has no deck
    for path, name in zip(decks, names, strict=True):
        if not name.startswith("_static/"):
            check_golden(GOLDEN / (name.replace("/", "__") + ".golden"), path.read_text())


def test_a_reveal_deck_opens_offline_and_moves_by_keyboard(book: Path) -> None:
    deck = book / "_build/slides/pytorch/chapter/basics.html"
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):
        page.goto(file_url(deck))
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.wait_for_function("document.querySelector('mjx-container') !== null")
        total = page.evaluate("Reveal.getTotalSlides()")
        shown = []
        for _ in range(total):
            shown.append(page.evaluate("Reveal.getCurrentSlide().innerText"))
            page.keyboard.press("ArrowRight")
        assert page.evaluate("Reveal.getIndices().h") == total - 1
        page.keyboard.press("Home")
        assert page.evaluate("Reveal.getIndices().h") == 0
        assert errors == []
    assert calls == []  # nothing but file:// was asked for
    assert total == 4 and shown[0].startswith("Data and Models")
    assert "prediction: 6.0 from torch" in shown[3]  # the executed output
    assert "Fig. 1.1.1" in shown[1]


def test_the_site_links_each_sections_deck(book: Path) -> None:
    site = book / "_build/html"
    for name, decked in (("chapter/basics.html", True), ("chapter/plain.html", False)):
        soup = BeautifulSoup((site / name).read_text(encoding="utf-8"), "html.parser")
        links = {str(a["data-pb-follow"]): str(a["href"]) for a in soup.select("a.pb-slides")}
        if not decked:
            assert links == {}
            continue
        assert set(links) == {"pytorch", "jax"}
        for href in links.values():
            assert (site / "chapter" / href).resolve().is_file(), href


def test_students_read_references_as_text_numbered_as_the_site(book: Path) -> None:
    nb = reads((book / "_build/notebooks/pytorch/chapter/models.ipynb").read_text())
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    site = "https://book.example.org/chapter/basics.html?tab=pytorch"
    assert f"[(1.1.1)]({site}#equation-eq-loss)" in text
    assert f"[Table 1.1.1]({site}#tab-sizes)" in text
    basics = (book / "_build/notebooks/pytorch/chapter/basics.ipynb").read_text()
    assert "(He et al., 2016)" in json.dumps([c.source for c in reads(basics).cells])


def test_no_source_syntax_reaches_a_reader_of_the_shipped_book(tmp_path: Path) -> None:
    root = copy_shipped(tmp_path / "book")
    config = root / "config.ini"  # the prose is what matters here: nothing is executed
    config.write_text(config.read_text().replace("eval_notebook = True", "eval_notebook = False"))
    assert build_all(root) == [0, 0, 0]
    assert scan(root) == []
    decks = sorted((root / "_build/slides/pytorch/chapter_builders-guide").glob("*.html"))
    sections = sorted((root / "chapter_builders-guide").glob("*.md"))
    assert [d.stem for d in decks] == [s.stem for s in sections]  # every section has a deck
