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
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from .browser import OpenPage, file_url, new_context

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parent / "site_fixture"
PAGE1 = FIXTURE / "page1.html"
PAGE2 = FIXTURE / "page2.html"
STORAGE_KEY = "polybook.tab"

# For each tab set: whether it is hidden, and per tab/panel the attributes the script sets.
STATE_JS = """() => Array.from(document.querySelectorAll('.pb-tabset')).map((set) => {
  const tabs = Array.from(set.querySelectorAll(':scope > .pb-tabbar > .pb-tab'));
  const panels = Array.from(set.querySelectorAll(':scope > .pb-panel'));
  return {
    id: set.id,
    hidden: set.hidden,
    displayed: set.getClientRects().length > 0,
    selected: tabs.filter((t) => t.getAttribute('aria-selected') === 'true')
                  .map((t) => t.dataset.pbTab),
    active: tabs.filter((t) => t.classList.contains('is-active')).map((t) => t.dataset.pbTab),
    focusable: tabs.filter((t) => t.getAttribute('tabindex') === '0').map((t) => t.dataset.pbTab),
    unfocusable: tabs.filter((t) => t.getAttribute('tabindex') === '-1').length,
    ntabs: tabs.length,
    shown: panels.filter((p) => !p.hidden).map((p) => p.dataset.pbTab),
    displayedPanels: panels.filter((p) => p.getClientRects().length > 0)
                           .map((p) => p.dataset.pbTab),
  };
})"""


def state(page: Page) -> dict[str, str | None]:
    """Map each tab set's id to its selected framework, or None where the set is hidden.

    Also checks that each visible set is consistent: one selected tab, which is the active
    one and the only one in the tab order, and exactly its panel shown.
    """
    result: dict[str, str | None] = {}
    for s in cast(list[dict[str, Any]], page.evaluate(STATE_JS)):
        sid = cast(str, s["id"])
        if s["hidden"]:
            assert not s["displayed"], f"{sid} has `hidden` but is still displayed"
            result[sid] = None
            continue
        assert s["displayed"], f"{sid} is not hidden but not displayed"
        assert len(s["selected"]) == 1, f"{sid}: aria-selected on {s['selected']}"
        name = cast(str, s["selected"][0])
        assert s["active"] == [name], f"{sid}: is-active on {s['active']}, selected {name}"
        assert s["focusable"] == [name], f"{sid}: tabindex=0 on {s['focusable']}"
        assert s["unfocusable"] == s["ntabs"] - 1, f"{sid}: other tabs need tabindex=-1"
        assert s["shown"] == [name], f"{sid}: panels without `hidden`: {s['shown']}"
        assert s["displayedPanels"] == [name], f"{sid}: panels displayed: {s['displayedPanels']}"
        result[sid] = name
    return result


def expected(name: str) -> dict[str, str | None]:
    """The expected state of page1 when `name` is chosen."""
    members = {
        "set-a": ("pytorch", "mxnet", "jax", "tensorflow"),
        "set-b": ("pytorch", "mxnet"),
        "set-c": ("pytorch", "jax", "tensorflow"),
        "set-d": ("mxnet", "tensorflow"),
    }
    return {sid: (name if name in fws else None) for sid, fws in members.items()}


def tab(set_id: str, name: str) -> str:
    return f"#{set_id} > .pb-tabbar > .pb-tab[data-pb-tab='{name}']"


def stored(page: Page) -> str | None:
    return cast("str | None", page.evaluate("(k) => localStorage.getItem(k)", STORAGE_KEY))


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


# ---- fixtures (Chromium, the context and open_page: conftest.py) ------------------------


@pytest.fixture
def window_size() -> tuple[int, int]:
    return (1024, 600)


@pytest.fixture
def start_page() -> Path:
    return PAGE1


# ---- tests -----------------------------------------------------------------------------


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


@pytest.mark.parametrize("bad", ["foo", "torch", ""])
def test_unknown_query_falls_back(open_page: OpenPage, bad: str) -> None:
    fresh = open_page(PAGE1, query={"tab": bad})
    assert state(fresh) == expected("pytorch")  # no storage: the default
    fresh.click(tab("set-c", "tensorflow"))
    page = open_page(PAGE1, query={"tab": bad})
    assert state(page) == expected("tensorflow")  # storage
    assert stored(page) == "tensorflow"


@pytest.mark.parametrize(
    ("value", "name"),
    [("JAX", "jax"), ("Jax", "jax"), ("TensorFlow", "tensorflow"), ("MXNET", "mxnet")],
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
