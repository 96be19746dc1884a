"""The site's search for a reader, in the system Chromium from ``file://``: the shipped book
with its compatibility record (the repository's ``_compat``), as the shipped site is
built. The API entries of the four frameworks' libraries come once per name, in the
reader's framework, the others beside it; the compatibility page and its reports are not
searched; a result that names a section shows that section's text, never raw HTML."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast
from urllib.parse import urljoin

import pytest
from playwright.sync_api import Browser, Page

from ..browser import file_url, new_context, watch_errors

pytestmark = pytest.mark.slow

FOUND = "() => /found|did not match/.test(document.querySelector('#search-results').textContent)"
RESULTS = """() => Array.from(document.querySelectorAll('#search-results > ul > li')).map((li) => ({
  href: li.querySelector('a').getAttribute('href'),
  title: li.querySelector('a').textContent,
  where: (li.querySelector('.pb-search-where') || {}).textContent || '',
  also: Array.from(li.querySelectorAll('.pb-search-facet a')).map((a) => a.textContent),
  snippet: (li.querySelector('p.context') || {}).textContent || '',
}))"""
# A section's text as the reader reads it, its code and outputs left out.
SECTION_TEXT = """(id) => {
  const section = document.getElementById(id).closest('section');
  const copy = section.cloneNode(true);
  copy.querySelectorAll('pre, .pb-output, .pb-tabset:not([data-pb-kind="prose"])')
    .forEach((e) => e.remove());
  return copy.textContent.replace(/\\s+/g, ' ');
}"""


@pytest.fixture(scope="module")
def html(shipped_site: Path) -> Path:
    site = shipped_site / "_build" / "html"  # built with the repository's _compat
    assert (site / "compatibility.html").is_file()
    return site


def _search(page: Page, html: Path, query: str, tab: str) -> list[dict[str, Any]]:
    page.goto(file_url(html / "search.html", {"q": query, "tab": tab}))
    page.wait_for_function(FOUND, timeout=30000)
    # Snippets come once each page's text is read: wait for every page result's.
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('#search-results > ul > li.kind-text'))"
        ".every((li) => li.querySelector('p.context'))",
        timeout=30000,
    )
    return cast(list[dict[str, Any]], page.evaluate(RESULTS))


@pytest.mark.parametrize("tab", ["pytorch", "tensorflow"])
def test_api_entries_come_once_per_name_in_the_readers_framework(
    html: Path, chromium: Browser, tab: str
) -> None:
    label = {"pytorch": "PyTorch", "tensorflow": "TensorFlow"}[tab]
    with new_context(chromium, width=1280, height=800) as context:
        page = context.new_page()
        errors = watch_errors(page)
        results = _search(page, html, "gpu", tab)
        api = [r for r in results if r["href"].startswith("api/")]
        names = [re.sub(r"^d2l\.[a-z]+\.", "", r["title"]) for r in api]
        assert len(names) == len(set(names))  # once per name (4 frameworks' stubs before)
        assert {"gpu", "try_gpu", "num_gpus", "try_all_gpus"} <= set(names)
        assert all(r["href"].startswith(f"api/{tab}.html") for r in api)
        assert all(r["where"] == f" \u00b7 {label}" for r in api)
        others = {"PyTorch", "MXNet", "JAX", "TensorFlow"} - {label}
        assert all(set(r["also"]) == others for r in api)
        assert len(api) * 2 < len(results) + 4  # the book's sections are not crowded out
        # The facet leads to the same name in another framework's library.
        facet = page.locator("#search-results .pb-search-facet a", has_text="JAX").first
        href = facet.get_attribute("href")
        assert href is not None and re.fullmatch(r"api/jax\.html#d2l\.jax\.\w*gpu\w*", href)
        assert errors == []


def test_generated_pages_are_not_searched_and_snippets_hold_no_markup(
    html: Path, chromium: Browser
) -> None:
    with new_context(chromium, width=1280, height=800) as context:
        page = context.new_page()
        for query in ("gpu", "checked", "target"):
            results = _search(page, html, query, "pytorch")
            hrefs = [r["href"] for r in results]
            assert not any(h.startswith(("compatibility", "compat/")) for h in hrefs), hrefs
            for result in results:
                assert not re.search(r"</?[a-z]+[ >]", result["snippet"]), result


@pytest.mark.parametrize("query", ["computing", "layers", "saving"])
def test_a_result_that_names_a_section_shows_that_sections_text(
    html: Path, chromium: Browser, query: str
) -> None:
    with new_context(chromium, width=1280, height=800) as context:
        page, target = context.new_page(), context.new_page()
        results = _search(page, html, query, "pytorch")
        named = [r for r in results if r["where"].startswith(" \u203a ") and r["snippet"]]
        assert named
        for result in named:
            target.goto(urljoin(file_url(html / "search.html"), result["href"]))
            section = target.evaluate(SECTION_TEXT, result["href"].split("#")[1])
            start = " ".join(result["snippet"].strip(". ").split()[:4])  # its first words
            assert start in section, (result, section[:300])
