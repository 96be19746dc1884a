"""The reader's framework choice in the browser (polybook/site/static/polybook-address.js):
kept in localStorage, carried in the address (``?tab=``) and by links, restored on going
back; over the fixture pages of tests/site_fixture/ (see tests/tabs_page.py)."""

from __future__ import annotations

from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext

from ..browser import OpenPage, file_url, new_context
from ..tabs_page import PAGE1, PAGE2, STORAGE_KEY, expected, query, state, stored, tab

pytestmark = pytest.mark.slow


@pytest.fixture
def window_size() -> tuple[int, int]:
    return (1024, 600)


@pytest.fixture
def start_page() -> Path:
    return PAGE1


def test_click_stores_choice_and_updates_url(open_page: OpenPage) -> None:
    page = open_page(query={"x": "1"}, fragment="top")
    length = page.evaluate("history.length")
    page.click(tab("set-a", "jax"))
    assert stored(page) == "jax"
    assert query(page) == {"x": ["1"], "tab": ["jax"]}
    assert urlsplit(page.url).fragment == "top"
    assert urlsplit(page.url).path.endswith("/page1.html")
    assert page.evaluate("location.search").endswith("tab=jax")
    assert page.evaluate("history.length") == length  # replaced, not pushed

    page.click(tab("set-a", "mxnet"))
    assert query(page) == {"x": ["1"], "tab": ["mxnet"]}
    assert stored(page) == "mxnet"


def test_choice_persists_to_next_page(open_page: OpenPage) -> None:
    page = open_page()
    page.click(tab("set-c", "jax"))
    # A new page of the same context, with no ?tab=: the choice comes from localStorage.
    other = open_page(PAGE2)
    assert "tab" not in query(other)
    assert state(other) == {"set-e": "jax"}
    # And back on page 1, opened afresh.
    again = open_page(PAGE1)
    assert state(again) == expected("jax")


def test_storage_is_per_context(open_page: OpenPage, chromium: Browser) -> None:
    page = open_page()
    page.click(tab("set-a", "tensorflow"))
    with new_context(chromium) as fresh:
        other = fresh.new_page()
        other.goto(file_url(PAGE2))
        assert state(other) == {"set-e": "pytorch"}


def test_link_carries_tab_to_next_page(open_page: OpenPage) -> None:
    page = open_page()
    page.click(tab("set-a", "jax"))
    # Without storage, the ?tab= added to the link on click must carry the choice.
    page.evaluate("() => localStorage.clear()")
    with page.expect_navigation():
        page.click("#to-page2")
    assert query(page) == {"tab": ["jax"]}
    assert state(page) == {"set-e": "jax"}


def test_link_rewrite_keeps_query_and_fragment(open_page: OpenPage) -> None:
    page = open_page()
    page.click(tab("set-a", "mxnet"))
    # Keep the clicks from navigating (a listener on window runs after the script's).
    page.evaluate("() => window.addEventListener('click', (e) => e.preventDefault())")
    page.click("#to-page2-query")
    assert page.get_attribute("#to-page2-query", "href") == "page2.html?x=1&tab=mxnet#sec"
    page.click("#to-external")
    assert page.get_attribute("#to-external", "href") == "https://example.org/page.html"
    page.click("#to-anchor")
    assert page.get_attribute("#to-anchor", "href") == "#set-c"
    page.click("#to-page2")
    assert page.get_attribute("#to-page2", "href") == "page2.html?tab=mxnet"


def test_query_overrides_storage(open_page: OpenPage) -> None:
    page = open_page()
    page.click(tab("set-a", "jax"))
    assert stored(page) == "jax"
    other = open_page(PAGE1, query={"tab": "mxnet"})
    assert state(other) == expected("mxnet")
    assert stored(other) == "mxnet"  # following a ?tab= link is a choice too
    assert state(open_page(PAGE2)) == {"set-e": "mxnet"}


@pytest.mark.parametrize("bad", ["foo", "pytroch", ""])  # `torch` is PyTorch's short name
def test_unknown_query_falls_back(open_page: OpenPage, bad: str) -> None:
    fresh = open_page(PAGE1, query={"tab": bad})
    assert state(fresh) == expected("pytorch")  # no storage: the default
    fresh.click(tab("set-c", "tensorflow"))
    page = open_page(PAGE1, query={"tab": bad})
    assert state(page) == expected("tensorflow")  # storage
    assert stored(page) == "tensorflow"


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("JAX", "jax"),
        ("Jax", "jax"),
        ("TensorFlow", "tensorflow"),
        ("MXNET", "mxnet"),
        ("TF", "tensorflow"),
    ],
)
def test_query_names_a_framework_in_any_case_or_by_its_display_name(
    open_page: OpenPage, value: str, name: str
) -> None:
    page = open_page(query={"tab": value})
    assert state(page) == expected(name)
    assert stored(page) == name


def test_links_for_one_framework_follow_the_choice(open_page: OpenPage) -> None:
    page = open_page()

    def shown() -> list[str]:
        links = page.locator("#follow a:visible")
        return [
            cast(str, links.nth(i).get_attribute("data-pb-follow")) for i in range(links.count())
        ]

    assert shown() == ["pytorch"]
    page.click(tab("set-a", "jax"))
    assert shown() == ["jax"]


def test_back_shows_the_latest_choice_not_the_older_address(open_page: OpenPage) -> None:
    page = open_page()
    page.click(tab("set-a", "jax"))
    with page.expect_navigation():
        page.click("#to-page2")  # page2.html?tab=jax
    page.click("#set-e > .pb-tabbar > .pb-tab[data-pb-tab='mxnet']")
    page.go_back()  # to page1.html?tab=jax: the reader has since chosen mxnet
    assert state(page) == expected("mxnet")
    assert stored(page) == "mxnet"
    assert query(page)["tab"] == ["mxnet"]


def test_a_page_restored_from_the_back_forward_cache_follows_the_stored_choice(
    open_page: OpenPage,
) -> None:
    page = open_page()
    page.click(tab("set-a", "jax"))
    page.evaluate(f"() => localStorage.setItem('{STORAGE_KEY}', 'tensorflow')")  # elsewhere
    page.evaluate(
        "() => window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))"
    )
    assert state(page) == expected("tensorflow")
    assert query(page)["tab"] == ["tensorflow"]


def test_works_without_local_storage(context: BrowserContext, open_page: OpenPage) -> None:
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', {get() {"
        " throw new DOMException('denied', 'SecurityError'); }});"
    )
    page = open_page()
    assert state(page) == expected("pytorch")
    page.click(tab("set-a", "jax"))
    assert state(page) == expected("jax")
    assert query(page)["tab"] == ["jax"]
    other = open_page(PAGE2, query={"tab": "tensorflow"})
    assert state(other) == {"set-e": "tensorflow"}
