"""The shipped book's site for a keyboard and a phone, and its compare view at 1280 px, in
the system Chromium from ``file://``: no Tab stop inside a drawer folded off the screen,
a focus ring on every Tab stop, the framework switcher flush under the phone's header, and
a compare view that keeps the navigation, the prose's measure and the code's size."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, Page

from ..browser import file_url, new_context

pytestmark = pytest.mark.slow

GPUS = "chapter_builders-guide/use-gpu.html"
# The focused element: where it is, whether a ring shows, whether it sits in a drawer and
# whether that drawer is on the screen.
FOCUSED = """() => {
  const e = document.activeElement;
  const s = getComputedStyle(e);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0)
    || s.boxShadow !== 'none';
  const drawer = e.closest('.sidebar-drawer, .toc-drawer');
  const box = drawer && drawer.getBoundingClientRect();
  return {
    name: e.tagName + '.' + String(e.className) + ' ' + (e.textContent || '').trim().slice(0, 30),
    body: e === document.body,
    ring: ring,
    inDrawer: !!drawer,
    drawerOnScreen: !!box && box.right > 0 && box.left < innerWidth,
  };
}"""


def _tab_stops(page: Page, most: int = 200) -> list[dict[str, Any]]:
    """Every Tab stop of the page from its top, in order, once round."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); }")
    stops: list[dict[str, Any]] = []
    for _ in range(most):
        page.keyboard.press("Tab")
        stop = cast(dict[str, Any], page.evaluate(FOCUSED))
        if stop["body"] or (stops and stop["name"] == stops[0]["name"]):
            break
        stops.append(stop)
    return stops


@pytest.mark.parametrize("page_name", [GPUS, "search.html"])
def test_a_folded_drawer_holds_no_focus_on_a_phone(
    shipped_site: Path, chromium: Browser, page_name: str
) -> None:
    html = shipped_site / "_build" / "html"
    with new_context(chromium, width=390, height=844) as context:
        page = context.new_page()
        page.goto(file_url(html / page_name))
        stops = _tab_stops(page)
        assert len(stops) > 5
        assert [s["name"] for s in stops if s["inDrawer"]] == []  # 17 went in there before
        # Opened, the navigation drawer's links are reached.
        page.click("label.nav-overlay-icon")
        page.wait_for_function(
            "() => document.querySelector('.sidebar-drawer').getBoundingClientRect().left >= 0"
        )
        opened = _tab_stops(page)
        inside = [s for s in opened if s["inDrawer"]]
        assert inside and all(s["drawerOnScreen"] for s in inside)


@pytest.mark.parametrize("width", [1280, 390])
def test_every_tab_stop_shows_the_focus(shipped_site: Path, chromium: Browser, width: int) -> None:
    html = shipped_site / "_build" / "html"
    with new_context(chromium, width=width, height=800) as context:
        page = context.new_page()
        for name in (GPUS, "search.html", "index.html"):
            page.goto(file_url(html / name))
            stops = _tab_stops(page)
            assert len(stops) > 5
            assert [s["name"] for s in stops if not s["ring"]] == [], name
        if width > 1000:  # the sidebar's search box, reached by the keyboard
            page.goto(file_url(html / GPUS))
            page.focus(".sidebar-search")
            ring = page.eval_on_selector(
                ".sidebar-search", "(e) => getComputedStyle(e).outlineStyle"
            )
            assert ring != "none"


def test_the_switcher_sits_flush_under_the_phones_header(
    shipped_site: Path, chromium: Browser
) -> None:
    html = shipped_site / "_build" / "html"
    with new_context(chromium, width=390, height=844) as context:
        page = context.new_page()
        page.goto(file_url(html / GPUS))
        for scrolled in (600, 1500, 3000):
            page.evaluate(f"window.scrollTo(0, {scrolled})")
            page.wait_for_function("() => document.querySelector('.mobile-header.scrolled')")
            gap = page.evaluate(
                "() => document.querySelector('.pb-switcher').getBoundingClientRect().top"
                " - document.querySelector('.mobile-header').getBoundingClientRect().bottom"
            )
            assert gap <= 0, (scrolled, gap)  # no line of the text between the two


# At 1280 px, comparing: the sidebar, a prose line's length in characters (its width over
# the average width of its font's letters), the compared code's and the page's code's size.
COMPARED = """() => {
  const prose = Array.from(document.querySelectorAll('article section > p'))
    .find((p) => p.textContent.length > 300);
  const font = getComputedStyle(prose).font;
  const pen = document.createElement('canvas').getContext('2d');
  pen.font = font;
  const sample = 'the quick brown fox jumps over a lazy dog, THEN 1234 of 5678 tensors on a GPU';
  const letter = pen.measureText(sample).width / sample.length;
  const compared = document.querySelector(
    '.pb-comparing > .pb-panel div[class*="highlight-"]:not(.highlight-none) pre');
  const plain = Array.from(document.querySelectorAll('article pre'))
    .find((p) => !p.closest('.pb-comparing, .pb-output'));
  const sidebar = document.querySelector('.sidebar-drawer').getBoundingClientRect();
  return {
    characters: prose.clientWidth / letter,
    compared: parseFloat(getComputedStyle(compared).fontSize),
    plain: parseFloat(getComputedStyle(plain).fontSize),
    sidebar: sidebar.width > 100 && sidebar.right <= innerWidth && sidebar.left >= 0,
    panels: Array.from(document.querySelectorAll('.pb-comparing > .pb-panel:not([hidden])'))
      .slice(0, 2).map((p) => p.getBoundingClientRect().width),
  };
}"""


def test_compare_at_1280_keeps_the_navigation_the_measure_and_the_code_size(
    shipped_site: Path, chromium: Browser
) -> None:
    html = shipped_site / "_build" / "html"
    with new_context(chromium, width=1280, height=800) as context:
        page = context.new_page()
        page.goto(file_url(html / GPUS, {"compare": "pytorch,tensorflow"}))
        page.wait_for_selector(".pb-comparing")
        found = page.evaluate(COMPARED)
        assert found["sidebar"]  # the book's navigation stays beside it
        assert page.locator(".sidebar-tree a.current").is_visible()
        assert 65 <= found["characters"] <= 95, found  # about 135 before
        assert found["compared"] == found["plain"], found  # 11.5 px against 13 before
        left, right = found["panels"]
        assert left > 400 and abs(left - right) < 2, found  # side by side, each its half
        # The same statement under another framework's name is not a difference: of the
        # page's lines of code, PyTorch beside TensorFlow, few are marked.
        marked = page.locator(".pb-comparing mark.pb-diff").count()
        lines = page.evaluate(
            "() => Array.from(document.querySelectorAll('.pb-comparing > .pb-panel"
            ' div[class*="highlight-"]:not(.highlight-none) pre\'))'
            ".filter((p) => !p.closest('.pb-output'))"
            ".reduce((n, p) => n + p.textContent.split('\\n').filter((l) => l.trim()).length, 0)"
        )
        assert 0 < marked < lines * 0.15, (marked, lines)  # 34 of 138 before
