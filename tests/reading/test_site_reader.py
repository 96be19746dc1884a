"""The reader's features on the fixture book built end to end (the ``built`` fixture: one
build for this module and ``test_build_e2e``), read back as files and in headless Chromium
from ``file://``, with every request that leaves ``file://`` refused and recorded."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup, Tag

from polybook.nb import reads

from ..books import Built
from ..browser import file_url, offline_page

pytestmark = pytest.mark.slow
TABS = ("pytorch", "mxnet", "jax", "tensorflow")
MODULES = {"pytorch": "torch", "mxnet": "mxnet", "jax": "jax", "tensorflow": "tensorflow"}
SAVED = {fw: {"double", "triple"} for fw in TABS} | {"jax": {"backend", "double", "triple"}}
PAGES = ("index", "chap/index", "chap/tensors", "chap/more")


def _html(built: Built) -> Path:
    return built.root / "_build" / "html"


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _target(page: Path, href: str) -> tuple[Path, str]:
    """The file and fragment a relative link of ``page`` leads to."""
    parts = urlsplit(href)
    assert not parts.scheme and not parts.netloc, href
    return (page.parent / unquote(parts.path)).resolve(), parts.fragment


def test_copy_buttons_copy_the_code_without_outputs(built: Built) -> None:
    calls: list[str] = []
    with offline_page(calls) as (context, page, errors):
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.goto(file_url(_html(built) / "chap" / "tensors.html"))
        cell = page.locator("div.pb-cell", has_text="def double").first
        cell.hover()
        cell.locator("button.copybtn").click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.startswith("def double(x):  #@save\n")
        assert copied.rstrip().endswith("return x * 2")
        # Code has a button; outputs (highlighted as plain text) have none.
        assert page.locator(".pb-output button.copybtn").count() == 0
        assert page.locator(".pb-panel .highlight-python button.copybtn").count() > 0
        assert errors == [] and calls == []


def test_a_page_with_code_links_each_frameworks_notebook_the_site_holds(built: Built) -> None:
    root, html = built.root, _html(built)
    for name in ("index", "chap/index"):  # no code: no notebook offered
        assert _soup(html / f"{name}.html").select(".pb-downloads a.pb-download") == []
    for name in ("chap/tensors", "chap/more"):
        doc = html / f"{name}.html"
        links = _soup(doc).select(".pb-downloads a.pb-download")
        assert [a["data-pb-follow"] for a in links] == list(TABS), name
        for link, fw in zip(links, TABS, strict=True):
            target, _ = _target(doc, str(link["href"]))
            assert target == (html / "_notebooks" / fw / f"{name}.ipynb").resolve()
            text = target.read_text(encoding="utf-8")
            assert str(root) not in text  # the build machine's paths are not in it
            nb = reads(text)
            assert nb.cells and nb.metadata["polybook"]["framework"] == fw
    # No Colab or SageMaker repository is configured: no such links.
    assert _soup(html / "chap" / "more.html").select(".pb-colab, .pb-sagemaker") == []
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):  # the choice of framework picks the link
        page.goto(file_url(html / "chap" / "more.html", {"tab": "JAX"}))
        shown = page.locator(".pb-downloads a:visible")
        assert shown.count() == 1 and shown.get_attribute("data-pb-follow") == "jax"
        assert errors == [] and calls == []


def _entry_ids(api_page: Path) -> dict[str, Tag]:
    return {str(dt["id"]): dt for dt in _soup(api_page).select("dl.py > dt[id]")}


def test_api_pages_list_every_saved_name_linked_both_ways(built: Built) -> None:
    html = _html(built)
    for fw in TABS:
        api_page = html / "api" / f"{fw}.html"
        entries = _entry_ids(api_page)
        module = f"d2l.{MODULES[fw]}"
        assert set(entries) == {f"{module}.{name}" for name in SAVED[fw]}
        for entry_id, dt in entries.items():
            assert dt.select_one(".sig-name") is not None  # its signature
            defined = dt.find_next_sibling("dd").select_one("a.pb-defined")  # type: ignore[union-attr]
            assert defined is not None, entry_id
            assert f"?tab={fw}#" in str(defined["href"])
            doc, fragment = _target(api_page, str(defined["href"]).replace(f"?tab={fw}", ""))
            code = _soup(doc).find(id=fragment)
            assert code is not None, (entry_id, defined["href"])
            # ... and that code links back to this entry (for the reader of this framework).
            cell = code.find_parent(class_=["pb-panel", "pb-cell"])
            assert cell is not None
            back = [
                _target(doc, str(item.a["href"]))
                for item in cell.select(".pb-saved-item")
                if item.a is not None and item.get("data-pb-follow", fw) == fw
            ]
            assert (api_page.resolve(), entry_id) in back, entry_id
    assert "double" in (html / "api" / "pytorch.html").read_text()
    assert "triple" in _soup(html / "genindex.html").get_text()  # the index holds the names
    docstring = _entry_ids(html / "api" / "jax.html")["d2l.jax.double"].find_next_sibling("dd")
    assert docstring is not None and "Twice x." in docstring.get_text()


def test_a_citation_links_to_its_reference_entry(built: Built) -> None:
    page = _html(built) / "chap" / "more.html"
    [cite] = [a for a in _soup(page).select("a.reference") if "Paszke" in a.get_text()]
    assert cite.get_text(strip=True) == "Paszkeet al., 2019"
    target, fragment = _target(page, str(cite["href"]))
    assert target.name == "references.html"
    entry = _soup(target).find(id=fragment)
    assert entry is not None
    assert "an imperative style, high-performance deep learning" in entry.get_text().lower()
    listed = _soup(target).select_one("article")
    assert listed is not None and "JAX" not in listed.get_text()  # only the cited entries


def test_search_from_file_shows_snippets(built: Built) -> None:
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):
        # An MXNet reader's snippet holds MXNet's prose (a PyTorch reader's would not).
        page.goto(file_url(_html(built) / "search.html", {"q": "ndarrays", "tab": "mxnet"}))
        snippet = page.locator("#search-results p.context").first
        snippet.wait_for(timeout=20000)
        assert "MXNet calls them ndarrays" in snippet.inner_text()
        assert errors == [] and calls == []


def test_outputs_are_inert_and_without_the_machines_paths(built: Built) -> None:
    root, html = built.root, _html(built)
    more = html / "chap" / "more.html"
    soup = _soup(more)
    [probe] = soup.select(".pb-html table.pb-probe")
    assert probe.get_text(strip=True) == "kept cell"  # the table stays
    box = probe.find_parent(class_="pb-html")
    assert box is not None and box.select("script, img, [onerror]") == []
    assert "Javascript object" not in soup.get_text()  # the JavaScript output is dropped
    text = soup.get_text()
    # The working folder reads $BOOK; a package's file, from its site-packages folder down.
    assert "$BOOK/_build/eval/pytorch/chap torch/__init__.py" in text
    assert "$ENVS" not in text and "site-packages" not in text
    for doc in html.rglob("*.html"):
        assert str(root) not in doc.read_text(encoding="utf-8"), doc
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):
        page.goto(file_url(more))
        page.wait_for_load_state("load")
        assert page.locator("table.pb-probe").is_visible()
        assert page.evaluate("window.pbRan === undefined")  # nothing of the output ran
        for name in ("api/jax.html", "references.html", "genindex.html"):
            page.goto(file_url(html / name))
        assert errors == [] and calls == []


def test_favicon_and_logo_come_from_the_config(built: Built) -> None:
    page = _html(built) / "chap" / "tensors.html"
    soup = _soup(page)
    icon, logo = soup.select_one('link[rel~="icon"]'), soup.select_one("img.sidebar-logo")
    assert icon is not None and logo is not None
    for href in (str(icon["href"]), str(logo["src"])):
        target, _ = _target(page, href)
        assert target.read_bytes() == (built.root / "img" / "box.svg").read_bytes()
