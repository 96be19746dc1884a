"""Sphinx's warnings, mapped inside the Sphinx process to the author's lines, and kept
per page across builds that read only some pages.

Small books (no executable code) are built through the site stage's functions, once for
the module: one page puts each kind of problem on a known line; a two-page book goes
through edits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from polybook.config import load_config
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.render import warning_store
from polybook.render.page import render_page
from polybook.site.output import site_sections
from polybook.site.settings import site_settings
from polybook.site.stage import write_site
from polybook.source.book import load_book

from ..books import build, write_book

PAGE = """\
# Page
:label:`sec_page`

See :numref:`sec_nowhere` here.

![A missing image](../img/missing.png)

```{eval-rst}
A longer title
=====
```

```{figure}
```

:begin_tab:`pytorch`
PyTorch prose.

It refers to :numref:`tab_missing`.
:end_tab:

End.
"""
CONFIG = "[project]\nname = t\n[build]\ntabs = pytorch\neval_notebook = false\n"
INDEX = "# T\n\n```toc\n:maxdepth: 1\n\nchap/page\n```\n"


BOOK = {
    "index.md": INDEX,
    "chap/page.md": PAGE,
    "static/top.css": "body { margin: 0; }\n",
    "static/sub/deep.css": "p { margin: 0; }\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Reporter]:
    root = write_book(tmp_path_factory.mktemp("site") / "book", BOOK, CONFIG)
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    pages = [render_page(doc, {}, config.build.tabs, reporter) for doc in book.documents]
    write_site(site_sections(config), pages, reporter)
    return root, reporter


def rendered(reporter: Reporter) -> list[Diagnostic]:
    return [d for d in reporter.diagnostics if d.subtype.startswith("render.")]


def find(reporter: Reporter, text: str) -> Diagnostic:
    found = [d for d in rendered(reporter) if text in d.message]
    assert len(found) == 1, [str(d) for d in rendered(reporter)]
    return found[0]


pytestmark = pytest.mark.slow


def test_a_broken_numref_is_reported_at_the_authors_line(site: tuple[Path, Reporter]) -> None:
    diag = find(site[1], "sec_nowhere")
    assert diag.location == Location("chap/page.md", 4)
    assert diag.subtype == "render.ref.numref"
    assert diag.severity == "warning"
    assert str(diag).endswith("[polybook.render.ref.numref]")


def test_lines_inside_framework_tabs_are_exact(site: tuple[Path, Reporter]) -> None:
    assert find(site[1], "tab_missing").location == Location("chap/page.md", 19)


def test_a_missing_image_is_reported_at_its_line(site: tuple[Path, Reporter]) -> None:
    diag = find(site[1], "missing.png")
    assert diag.location == Location("chap/page.md", 6)
    assert diag.subtype == "render.image.not_readable"


def test_a_multi_line_warning_keeps_its_place_and_its_lines(
    site: tuple[Path, Reporter],
) -> None:
    diag = find(site[1], "Title underline too short")
    assert diag.location == Location("chap/page.md", 10)
    assert diag.message.splitlines()[-2:] == ["A longer title", "====="]
    assert (diag.severity, diag.subtype) == ("warning", "render.docutils")


def test_what_sphinx_calls_an_error_is_an_error(site: tuple[Path, Reporter]) -> None:
    diag = find(site[1], "1 argument(s) required")
    assert diag.location == Location("chap/page.md", 13)
    assert (diag.severity, diag.subtype) == ("error", "render.docutils")
    assert diag in site[1].errors
    others = [d for d in site[1].errors if d != diag]
    assert others == []  # no crash, nothing unlocated
    assert all(d.location.path == "chap/page.md" for d in rendered(site[1]))


def test_sphinx_warnings_are_suppressible_by_prefix(site: tuple[Path, Reporter]) -> None:
    store = warning_store.load(load_config(site[0]).layout.site_warnings)
    assert store is not None
    reporter = Reporter(suppressed=frozenset({"render.ref"}))
    warning_store.report(store, reporter)
    messages = [d.message for d in reporter.diagnostics]
    assert not any("sec_nowhere" in m or "tab_missing" in m for m in messages)
    assert any("missing.png" in m for m in messages)


def test_static_sub_folders_are_copied_and_top_level_css_linked(
    site: tuple[Path, Reporter],
) -> None:
    html = site[0] / "_build" / "html"
    assert (html / "_static" / "sub" / "deep.css").is_file()
    assert (html / "_static" / "top.css").is_file()
    assert "_static/top.css" in (html / "chap" / "page.html").read_text(encoding="utf-8")


def test_sphinx_log_lines_are_not_diagnostics(site: tuple[Path, Reporter]) -> None:
    settings = site_settings(site_sections(load_config(site[0])))
    log = Path(settings["log"]).read_text(encoding="utf-8")
    assert "build succeeded" in log
    assert not any("build succeeded" in d.message for d in site[1].diagnostics)


# A two-page book whose pages change between builds. The index and B have problems found
# while reading (unknown directives), A one found while writing (a broken reference).
INDEX_2 = "# T\n\n```{nosuch}\n```\n\n```toc\n:maxdepth: 1\n\nchap/a\nchap/b\n```\n"
A_BROKEN = "# A\n:label:`sec_a`\n\nSee :numref:`sec_nowhere`.\n"
A_FIXED = "# A, fixed\n:label:`sec_a`\n\nSee :numref:`sec_a`.\n"
B = "# B\n\n```{{nosuch}}\n```\n\nB {}.\n"
UNKNOWN = "render.myst.directive_unknown"
INDEX_WARNING, B_WARNING = ("index.md:3", UNKNOWN), ("chap/b.md:3", UNKNOWN)
NUMREF = ("chap/a.md:4", "render.ref.numref")


@dataclass
class Build:
    ran: bool
    reported: set[tuple[str, str]]  # (place, subtype) of the site's diagnostics
    run: warning_store.SphinxRun  # what Sphinx itself said and did in this build


def build_book(root: Path) -> Build:
    config = load_config(root)
    reporter = Reporter()
    pages = [
        render_page(doc, {}, config.build.tabs, reporter)
        for doc in load_book(config.book, config.build, reporter).documents
    ]
    settings = site_settings(site_sections(config))
    Path(settings["log"]).unlink(missing_ok=True)
    Path(settings["diagnostics"]).unlink(missing_ok=True)
    write_site(site_sections(config), pages, reporter)
    reported = {(str(d.location), d.subtype) for d in rendered(reporter)}
    run = warning_store.read_run(Path(settings["diagnostics"]))
    return Build(Path(settings["log"]).is_file(), reported, run)


@pytest.fixture(scope="module")
def edits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Build]:
    root = tmp_path_factory.mktemp("edits")
    (root / "chap").mkdir()
    (root / "config.ini").write_text(CONFIG)
    (root / "index.md").write_text(INDEX_2)
    (root / "chap" / "a.md").write_text(A_BROKEN)
    (root / "chap" / "b.md").write_text(B.format("text"))
    builds = {"first": build_book(root), "no-op": build_book(root)}
    (root / "chap" / "b.md").write_text(B.format("edited"))
    builds["B edited"] = build_book(root)
    (root / "chap" / "a.md").write_text(A_FIXED)
    builds["A fixed"] = build_book(root)
    (root / "chap" / "b.md").unlink()
    (root / "index.md").write_text(INDEX_2.replace("chap/b\n", ""))
    builds["B removed"] = build_book(root)
    return builds


def test_a_build_that_runs_no_sphinx_reports_the_sites_warnings(
    edits: dict[str, Build],
) -> None:
    assert edits["first"].reported == {INDEX_WARNING, NUMREF, B_WARNING}
    assert not edits["no-op"].ran
    assert edits["no-op"].reported == edits["first"].reported


def test_warnings_of_pages_sphinx_did_not_touch_are_kept(edits: dict[str, Build]) -> None:
    build = edits["B edited"]
    assert build.ran and build.run.read == {"chap/b"}
    said = {(str(d.location), d.subtype) for ds in build.run.entries.values() for _, d in ds}
    assert NUMREF not in said and INDEX_WARNING not in said  # Sphinx did not say them again
    assert build.reported == {INDEX_WARNING, NUMREF, B_WARNING}


def test_a_fixed_page_loses_its_warning_and_a_rewritten_one_keeps_its_reading_warnings(
    edits: dict[str, Build],
) -> None:
    build = edits["A fixed"]
    # A's new title rewrites the index (its toc), which Sphinx does not read again.
    assert "index" in build.run.written and "index" not in build.run.read
    assert build.reported == {INDEX_WARNING, B_WARNING}


def test_a_page_removed_from_the_book_drops_its_warnings(edits: dict[str, Build]) -> None:
    assert edits["B removed"].reported == {INDEX_WARNING}


CITED = """\
# Cited

Known :cite:`Known.2020`. Unknown :cite:`Nowhere.1999`. Both :cite:`Known.2020,Nowhere.1999`.
"""
BIB = "@book{Known.2020,\n  title = {A Known Book},\n  author = {Doe, Jane},\n  year = {2020},\n"
BIB += "  publisher = {Press}\n}\n"


def test_a_key_the_bibliography_lacks_shows_as_the_key_with_a_located_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = "[project]\nname = c\n[build]\ntabs = pytorch\neval_notebook = false\n"
    files = {"index.md": "# Book\n\n```toc\ncited\n```\n", "cited.md": CITED, "refs.bib": BIB}
    root = write_book(tmp_path / "book", files, config + "[pdf]\nbibfile = refs.bib\n")
    assert build(root) == 0
    html = (root / "_build" / "html" / "cited.html").read_text(encoding="utf-8")
    text = " ".join(BeautifulSoup(html, "html.parser").get_text().split())
    assert "Known (Doe, 2020)." in text
    assert "Unknown [Nowhere.1999]." in text  # not "()"
    assert "Both (Doe, 2020) [Nowhere.1999]." in text
    assert "()" not in text
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    missing = 'could not find bibtex key "Nowhere.1999" [polybook.render.bibtex.key_not_found]'
    assert warned == [f"cited.md:3: {missing}"], warned
