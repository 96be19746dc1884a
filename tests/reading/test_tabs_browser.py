"""Reader-side behaviour of the framework tabs (polybook/site/static/polybook-tabs.js).

Drives the system Chromium over the static pages in tests/site_fixture/ (file:// URLs), with
real clicks and key presses, and reads the DOM state back (aria-selected, hidden, tabindex).

page1.html holds four tab sets (the book's frameworks are pytorch, mxnet, jax, tensorflow):
  set-a: pytorch, mxnet, jax, tensorflow   (code)
  set-b: pytorch, mxnet                    (prose)
  set-c: pytorch, jax, tensorflow          (code)
  set-d: mxnet, tensorflow                 (code)
page2.html holds set-e with all four; page1 links to page2.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from playwright.sync_api import Page

from ..browser import OpenPage
from ..tabs_page import PAGE1, expected, query, state, stored, tab

pytestmark = pytest.mark.slow


@pytest.fixture
def window_size() -> tuple[int, int]:
    return (1024, 600)


@pytest.fixture
def start_page() -> Path:
    return PAGE1


def test_default_is_first_framework(open_page: OpenPage) -> None:
    page = open_page()
    assert state(page) == expected("pytorch")
    assert state(page)["set-d"] is None  # a set without pytorch is hidden
    assert not page.is_visible("#set-d")
    assert page.is_visible("#set-b")
    assert "tab" not in query(page)  # nothing chosen yet: the address is left alone


def test_click_selects_by_name_on_all_sets(open_page: OpenPage) -> None:
    page = open_page()
    # jax is the 3rd tab of set-a but the 2nd of set-c: sets follow the name.
    page.click(tab("set-a", "jax"))
    assert state(page) == expected("jax")
    assert not page.is_visible("#set-b")  # pytorch+mxnet only: hidden for jax readers
    assert not page.is_visible("#set-d")
    assert page.is_visible(tab("set-c", "jax"))

    page.click(tab("set-c", "pytorch"))
    assert state(page) == expected("pytorch")
    assert page.is_visible("#set-b")  # shown again

    page.click(tab("set-b", "mxnet"))
    assert state(page) == expected("mxnet")
    assert not page.is_visible("#set-c")
    assert page.is_visible("#set-d")

    page.click(tab("set-d", "tensorflow"))
    assert state(page) == expected("tensorflow")


def test_print_shows_the_chosen_framework_without_tab_buttons(open_page: OpenPage) -> None:
    page = open_page(query={"tab": "jax"})
    page.emulate_media(media="print")
    assert page.locator(".pb-tabbar:visible").count() == 0
    assert page.is_visible("#set-a > .pb-panel[data-pb-tab='jax']")
    assert not page.is_visible("#set-a > .pb-panel[data-pb-tab='pytorch']")
    assert not page.is_visible("#follow")  # nor the notebook links
    page.emulate_media(media="screen")
    assert page.locator(".pb-tabbar:visible").count() == 2  # set-a and set-c have jax


def test_arrow_keys_move_between_tabs(open_page: OpenPage) -> None:
    page = open_page()
    page.focus(tab("set-a", "pytorch"))

    def focused() -> tuple[str, str]:
        return cast(
            "tuple[str, str]",
            tuple(
                page.evaluate(
                    "() => [document.activeElement.closest('.pb-tabset').id,"
                    " document.activeElement.dataset.pbTab]"
                )
            ),
        )

    page.keyboard.press("ArrowRight")
    assert focused() == ("set-a", "mxnet")
    assert state(page) == expected("mxnet")
    page.keyboard.press("ArrowRight")
    assert focused() == ("set-a", "jax")
    assert state(page) == expected("jax")
    page.keyboard.press("ArrowLeft")
    assert focused() == ("set-a", "mxnet")
    page.keyboard.press("ArrowLeft")
    assert focused() == ("set-a", "pytorch")
    page.keyboard.press("ArrowLeft")  # wraps around
    assert focused() == ("set-a", "tensorflow")
    assert state(page) == expected("tensorflow")
    page.keyboard.press("ArrowRight")  # and back
    assert focused() == ("set-a", "pytorch")
    page.keyboard.press("End")
    assert focused() == ("set-a", "tensorflow")
    page.keyboard.press("Home")
    assert focused() == ("set-a", "pytorch")
    assert stored(page) == "pytorch"
    assert query(page)["tab"] == ["pytorch"]

    # Inside set-c (pytorch, jax, tensorflow), the arrows follow set-c's own tabs.
    page.focus(tab("set-c", "pytorch"))
    page.keyboard.press("ArrowRight")
    assert focused() == ("set-c", "jax")
    assert state(page) == expected("jax")

    # Roving tabindex: Tab from the link before set-a lands on its selected tab only.
    page.focus("#to-external")
    page.keyboard.press("Tab")
    assert focused() == ("set-a", "jax")


def _settle(page: Page) -> None:
    """Wait two animation frames, so that late scroll adjustments have happened."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.mark.parametrize(
    "style",
    [
        "html, body { overflow-anchor: none; }",
        "",
        "html, body { overflow-anchor: none; } html { scroll-behavior: smooth; }",
    ],
    ids=["no-scroll-anchoring", "default", "smooth-scrolling"],
)
def test_clicked_tab_stays_in_place(open_page: OpenPage, style: str) -> None:
    page = open_page()
    # Without CSS scroll anchoring (Safari) only the script keeps things put; with the
    # theme's smooth scrolling, its correction must not glide.
    if style:
        page.add_style_tag(content=style)
    page.evaluate(
        "() => document.getElementById('set-c')"
        ".scrollIntoView({block: 'center', behavior: 'instant'})"
    )
    _settle(page)
    target = tab("set-c", "jax")
    scroll_before = cast(float, page.evaluate("window.scrollY"))
    assert scroll_before > 0
    top_before = cast(float, page.eval_on_selector(target, "(e) => e.getBoundingClientRect().top"))
    height_b = cast(float, page.eval_on_selector("#set-b", "(e) => e.offsetHeight"))
    assert height_b > 50  # set-b, above set-c, is tall and disappears for jax
    page.click(target)
    _settle(page)
    assert state(page) == expected("jax")
    top_after = cast(float, page.eval_on_selector(target, "(e) => e.getBoundingClientRect().top"))
    assert abs(top_after - top_before) < 2, (top_before, top_after)
    # The page did scroll, by about set-b's height (the layout above really changed).
    scroll_after = cast(float, page.evaluate("window.scrollY"))
    assert scroll_before - scroll_after > height_b - 5

    # And back: set-b reappears above, the tab still does not move.
    target = tab("set-c", "pytorch")
    top_before = cast(float, page.eval_on_selector(target, "(e) => e.getBoundingClientRect().top"))
    page.click(target)
    _settle(page)
    assert state(page) == expected("pytorch")
    top_after = cast(float, page.eval_on_selector(target, "(e) => e.getBoundingClientRect().top"))
    assert abs(top_after - top_before) < 2, (top_before, top_after)


def test_select_api(open_page: OpenPage) -> None:
    page = open_page()
    assert page.evaluate("window.polybookTabs.select('tensorflow')") is True
    assert state(page) == expected("tensorflow")
    assert page.evaluate("window.polybookTabs.select('foo')") is False
    assert state(page) == expected("tensorflow")


def test_tab_ids_and_aria_links(open_page: OpenPage) -> None:
    page = open_page()
    pairs = cast(
        list[list[str]],
        page.evaluate(
            """() => Array.from(document.querySelectorAll('.pb-tab')).map((t) => {
                 const p = document.getElementById(t.getAttribute('aria-controls'));
                 return [t.dataset.pbTab, p ? p.dataset.pbTab : '',
                         p ? p.getAttribute('aria-labelledby') === t.id : false];
               })"""
        ),
    )
    assert len(pairs) == 4 + 2 + 3 + 2
    for name, panel, linked in pairs:
        assert panel == name
        assert linked


def test_an_address_naming_a_cell_in_a_hidden_tab_shows_that_tab(open_page: OpenPage) -> None:
    page = open_page(fragment="arange-jax")
    assert state(page) == expected("jax")
    assert page.is_visible("#pb-panel-1-jax")
    assert stored(page) is None  # the page shows it; the reader's choice is not changed
