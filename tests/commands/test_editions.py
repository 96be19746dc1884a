"""Editions of one book (``[edition-<name>]``): a small English book and its Chinese
translation side by side. The translation's page whose code is the source's runs nothing
(its outputs come from the source's cache), a page whose code differs runs as its own, every
page links its counterparts, and ``polybook editions status`` lists what the translation
lags, a source edit after ``editions sync`` included."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.paths import node_modules

from ..books import Collect, build, code, evaluate, pages_book, ran
from ..browser import file_url, offline_page

SOURCE = (
    "[project]\nname = en\ntitle = Book\n\n[build]\ntabs = pytorch\n\n"
    "[edition-zh]\nroot = ../zh\nlang = zh\n"
)
TRANSLATION = (
    "[project]\nname = zh\ntitle = 书\nlang = zh\n\n[build]\ntabs = pytorch\n\n"
    "[edition-en]\nroot = ../en\nsource = true\n"
)
SHARED = code("x = 6 * 7", "print(x)")
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
AXE = node_modules() / "axe-core" / "axe.min.js"
# axe-core's serious and critical violations on the page (rule ids).
AXE_RUN = """async () => (await axe.run(document, {resultTypes: ['violations'], preload: false}))
  .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)"""


def _pair(folder: Path) -> tuple[Path, Path]:
    en = pages_book(
        folder / "en",
        {
            "one": f":label:`sec_one`\n\nSome prose.\n\n{SHARED}",
            "two": "Other prose.\n\n" + code("print('two')"),
            "three": "Only in English.\n",
        },
        SOURCE,
        folder="chap",
    )
    zh = pages_book(
        folder / "zh",
        {
            "one": f"一些文字。\n\n{SHARED}",
            "two": "别的文字。\n\n" + code("print('二')"),
        },
        TRANSLATION,
        folder="chap",
    )
    return en, zh


def test_editions_are_read_from_config_ini(tmp_path: Path) -> None:
    en, zh = _pair(tmp_path)
    (edition,) = load_config(en).editions
    assert (edition.name, edition.root, edition.lang, edition.source) == ("zh", zh, "zh", False)
    (source,) = load_config(zh).editions
    assert (source.name, source.root, source.source) == ("en", en, True)
    assert not load_config(zh).ignored  # [edition-en] is a known section


@pytest.mark.slow
def test_an_unchanged_translated_page_runs_nothing(tmp_path: Path) -> None:
    en, zh = _pair(tmp_path)
    assert build(en) == 0
    report = evaluate(zh)
    assert ran(report) == {"chap/two.md"}  # its code differs: it runs as its own
    assert report.editions == {("chap/one.md", "pytorch"): "en"}
    executed = report.executed[("chap/one.md", "pytorch")]
    assert "42" in json.dumps(executed.cells[-1].outputs)
    assert "一些文字" in executed.cells[0].source  # the translation's prose, the source's run
    handler = Collect()
    logging.getLogger("polybook").addHandler(handler)
    try:
        (zh / "_build").rename(tmp_path / "old")
        summary = tmp_path / "summary.json"
        assert main(["--root", str(zh), "build", "eval", "--report", str(summary)]) == 0
    finally:
        logging.getLogger("polybook").removeHandler(handler)
    assert "1 notebooks reused from edition en (the same code)" in handler.messages
    assert json.loads(summary.read_text(encoding="utf-8"))["editions"] == {"en": 1}


@pytest.mark.slow
def test_every_page_links_its_counterpart_in_the_other_edition(tmp_path: Path) -> None:
    en, zh = _pair(tmp_path)
    assert build(en) == 0 and build(zh) == 0
    page = en / "_build" / "html" / "chap" / "one.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    (link,) = soup.select("nav.pb-editions a")
    assert (link["hreflang"], link.get_text()) == ("zh", "中文")
    target = (page.parent / str(link["href"])).resolve()
    assert target == (zh / "_build" / "html" / "chap" / "one.html").resolve()
    (alternate,) = soup.select('link[rel="alternate"][hreflang="zh"]')
    assert alternate["href"] == link["href"]
    # No Chinese page three: its switcher leads to the Chinese front page.
    three = en / "_build" / "html" / "chap" / "three.html"
    (link,) = BeautifulSoup(three.read_text(encoding="utf-8"), "html.parser").select(
        "nav.pb-editions a"
    )
    assert (three.parent / str(link["href"])).resolve() == (
        zh / "_build" / "html" / "index.html"
    ).resolve()
    back = zh / "_build" / "html" / "chap" / "one.html"
    (link,) = (
        BeautifulSoup(back.read_text(encoding="utf-8"), "html.parser")
        .select("nav.pb-editions")[0]
        .select("a")
    )
    assert link.get_text() == "English" and (back.parent / str(link["href"])).resolve() == (
        page.resolve()
    )


def test_status_lists_what_the_translation_lags_and_a_stale_page_after_a_source_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    en, zh = _pair(tmp_path)
    report, page = tmp_path / "status.json", tmp_path / "status.html"
    args = ["--quiet", "--root", str(zh), "editions", "status"]
    assert main([*args, "--json", str(report), "--html", str(page)]) == 0
    (edition,) = json.loads(report.read_text(encoding="utf-8"))
    assert (edition["source"], edition["translation"], edition["lang"]) == ("en", "zh", "zh")
    rows = {p["page"]: p for p in edition["pages"]}
    assert rows["chap/three.md"]["state"] == "missing"
    assert rows["chap/two.md"]["code"] == {"pytorch": [1]}  # print('二'): its one cell
    assert rows["chap/one.md"]["code"] == {} and rows["chap/one.md"]["labels"] == ["label:sec_one"]
    assert {p["stale"] for p in rows.values() if p["state"] == "paired"} == {None}  # not synced
    assert "chap/three.md" in page.read_text(encoding="utf-8")
    assert "never synced" in capsys.readouterr().out
    # From the source's side: the same pairs.
    assert main(["--quiet", "--root", str(en), "editions", "status", "--json", str(report)]) == 0
    assert json.loads(report.read_text(encoding="utf-8"))[0]["pages"] == edition["pages"]
    # In CI: a missing page fails.
    assert main([*args, "--fail-on", "missing"]) == 1
    assert "zh: chap/three.md: missing [polybook.editions]" in capsys.readouterr().err
    # Synced, then the source's prose changes: the page is stale, and only it.
    assert main(["--quiet", "--root", str(zh), "editions", "sync", str(zh / "chap/one.md")]) == 0
    assert main([*args, "--fail-on", "stale"]) == 0
    with (en / "chap" / "one.md").open("a", encoding="utf-8") as source:
        source.write("\nA new paragraph.\n")
    assert main([*args, "--fail-on", "stale", "--json", str(report)]) == 1
    rows = {p["page"]: p for p in json.loads(report.read_text(encoding="utf-8"))[0]["pages"]}
    assert rows["chap/one.md"]["stale"] is True and rows["chap/two.md"]["stale"] is None
    assert (zh / "chap" / "one.md").read_text(encoding="utf-8").startswith("# one")  # unchanged


def test_status_without_editions_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = pages_book(tmp_path / "book", {"one": "Text.\n"})
    assert main(["--quiet", "--root", str(root), "editions", "status"]) == 1
    assert "[edition-<name>]" in capsys.readouterr().err


@pytest.mark.slow
def test_the_switcher_remembers_the_language_and_is_accessible(tmp_path: Path) -> None:
    en, zh = _pair(tmp_path)
    assert build(en) == 0 and build(zh) == 0
    one = en / "_build" / "html" / "chap" / "one.html"
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):
        for site in (en, zh):
            page.goto(file_url(site / "_build" / "html" / "chap" / "one.html"))
            page.add_script_tag(path=str(AXE))
            assert page.evaluate(AXE_RUN) == [], site.name
        page.goto(file_url(one))
        page.locator("nav.pb-editions a[hreflang=zh]").click()
        page.wait_for_url(re.compile(r"/zh/_build/html/chap/one\.html"))
        assert page.evaluate("localStorage.getItem('polybook.lang')") == "zh"
        page.goto(file_url(en / "_build" / "html" / "chap" / "three.html"))
        chosen = page.locator("nav.pb-editions a.pb-edition-chosen")
        assert chosen.get_attribute("hreflang") == "zh"
        assert errors == [] and calls == []


@pytest.mark.slow
def test_a_published_edition_is_in_the_sitemaps_alternates(tmp_path: Path) -> None:
    en, _ = _pair(tmp_path)
    config = (en / "config.ini").read_text(encoding="utf-8")
    config += "url = https://example.org/zh/\n\n[html]\nbase_url = https://example.org/en/\n"
    (en / "config.ini").write_text(config, encoding="utf-8")
    assert build(en) == 0
    html = en / "_build" / "html"
    sitemap = ElementTree.parse(html / "sitemap.xml").getroot()
    alternates = {}
    for entry in sitemap.iter(f"{{{SITEMAP}}}url"):
        loc = str(entry.findtext(f"{{{SITEMAP}}}loc"))
        links = entry.findall(f"{{{XHTML}}}link")
        alternates[loc] = [(a.get("hreflang"), a.get("href")) for a in links]
    base = "https://example.org/"
    assert alternates[f"{base}en/chap/one.html"] == [("zh", f"{base}zh/chap/one.html")]
    assert alternates[f"{base}en/chap/three.html"] == []  # no Chinese page three
    head = BeautifulSoup((html / "chap" / "one.html").read_text(encoding="utf-8"), "html.parser")
    (alternate,) = head.select('link[rel="alternate"][hreflang="zh"]')
    assert alternate["href"] == f"{base}zh/chap/one.html"
