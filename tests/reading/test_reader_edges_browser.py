"""What a reader meets on the shipped book's site (the ``shipped_site`` fixture) in Chromium,
at 1280×900 and a phone's 390×844: the framework switcher answers a real click after the page
has scrolled (nothing of the theme lies over it), nothing moves once the page is shown (with
the default framework and a stored one), the compare view shows both frameworks on a phone
and fits beside each other at 1280, copy buttons are seen when the keyboard reaches them,
pictures and formulas say what they are, and, without scripts, the text is the default
framework's alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from bs4 import BeautifulSoup
from playwright.sync_api import Browser, BrowserContext, Page

from ..browser import file_url, watch_errors

pytestmark = pytest.mark.slow

TOOLKIT = "chapter_builders-guide/toolkit.html"
GPUS = "chapter_builders-guide/use-gpu.html"
DESKTOP, PHONE = (1280, 900), (390, 844)

# The page's layout shifts, summed as Chrome's Cumulative Layout Shift counts them.
WATCH_SHIFTS = """
window.pbShift = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.pbShift += entry.value;
}).observe({type: 'layout-shift', buffered: true});
"""


def _html(site: Path) -> Path:
    return site / "_build" / "html"


def _pages(site: Path) -> list[Path]:
    html = _html(site)
    skipped = {"_static", "_epub", "_notebooks", "_dist", "_images", "_sources"}
    return sorted(p for p in html.rglob("*.html") if not skipped & set(p.parts))


@pytest.fixture
def contexts(chromium: Browser) -> Iterator[list[tuple[BrowserContext, list[str]]]]:
    """Contexts made with ``make(size, script)``; no script error allowed in their pages."""
    made: list[tuple[BrowserContext, list[str]]] = []
    yield made
    errors = [e for _, found in made for e in found]
    for context, _ in made:
        context.close()
    assert errors == []


def _context(
    chromium: Browser, made: list[tuple[BrowserContext, list[str]]], size: tuple[int, int]
) -> BrowserContext:
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(5000)
    errors: list[str] = []

    def watch(page: Page) -> None:
        errors.extend(watch_errors(page))

    context.on("page", watch)
    made.append((context, errors))
    return context


def _open(context: BrowserContext, path: Path, query: dict[str, str] | None = None) -> Page:
    page = context.new_page()
    page.goto(file_url(path, query))
    page.wait_for_function("document.documentElement.dataset.pbTab")
    return page


# ---- 1: the switcher under a real mouse, after scrolling down then up ----------------------


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_click_on_the_switcher_after_scrolling_up_chooses_the_framework(
    shipped_site: Path, chromium: Browser, contexts: Any, size: tuple[int, int]
) -> None:
    page = _open(_context(chromium, contexts, size), _html(shipped_site) / TOOLKIT)
    page.mouse.wheel(0, 2500)
    page.wait_for_timeout(400)
    page.mouse.wheel(0, -600)  # scrolling up: the theme offers "Back to top"
    page.wait_for_timeout(600)
    box = page.locator('.pb-switcher [data-pb-choose="jax"]').bounding_box()
    assert box is not None
    before = page.evaluate("window.scrollY")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(300)
    assert page.evaluate("document.documentElement.dataset.pbTab") == "jax"
    assert abs(page.evaluate("window.scrollY") - before) < 300  # not sent back to the top


# ---- 2: compare on a phone, and on a desktop ------------------------------------------------


def test_compare_on_a_phone_shows_both_frameworks_one_after_the_other(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    context = _context(chromium, contexts, PHONE)
    page = _open(context, _html(shipped_site) / GPUS, {"compare": "pytorch,jax"})
    sets = page.evaluate(
        """() => [...document.querySelectorAll('.pb-tabset.pb-comparing')].map((set) =>
      [...set.querySelectorAll(':scope > .pb-panel')].filter((p) => p.getClientRects().length)
        .map((p) => { const r = p.getBoundingClientRect();
                      return {tab: p.dataset.pbTab, top: r.top, bottom: r.bottom}; }))"""
    )
    both = [shown for shown in sets if len(shown) == 2]
    assert both, sets
    for first, second in both:
        assert (first["tab"], second["tab"]) == ("pytorch", "jax")
        assert second["top"] >= first["bottom"] - 1  # one after the other
    # The view is not remembered: the next page opened without ?compare= does not compare.
    other = _open(context, _html(shipped_site) / TOOLKIT)
    assert other.evaluate("document.querySelectorAll('.pb-comparing').length") == 0


def test_compared_code_at_1280_scrolls_in_its_own_box_and_by_keyboard(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    """Code keeps the page's size while compared, so a long line scrolls: only inside its
    own code box (never the panel, the page or an output, which wrap), and that box is in
    the tab order so that a keyboard scrolls it too."""
    context = _context(chromium, contexts, DESKTOP)
    wrong: dict[str, list[str]] = {}
    scrolled = 0
    for path in sorted((_html(shipped_site) / "chapter_builders-guide").glob("*.html")):
        for second in ("mxnet", "jax", "tensorflow"):
            page = _open(context, path, {"compare": f"pytorch,{second}"})
            found = page.evaluate(
                """() => {
              const over = (box) => box.scrollWidth > box.clientWidth + 1;
              const panels = [...document.querySelectorAll('.pb-comparing > .pb-panel')]
                .filter((p) => p.getClientRects().length);
              const code = panels.flatMap((p) => [...p.querySelectorAll(
                ':scope > div[class*="highlight-"]:not(.highlight-none) .highlight')]);
              const wrong = [
                ...panels.filter(over).map(() => 'a panel'),
                ...panels.flatMap((p) => [...p.querySelectorAll('.pb-output pre')])
                  .filter(over).map(() => 'an output'),
                ...code.filter(over).filter((box) => box.tabIndex !== 0)
                  .map(() => 'a code box out of the tab order'),
              ];
              if (document.documentElement.scrollWidth > window.innerWidth) wrong.push('the page');
              return [wrong, code.filter(over).length];
            }"""
            )
            if found[0]:
                wrong[f"{path.name} pytorch,{second}"] = found[0]
            scrolled += found[1]
            page.close()
    assert wrong == {}
    assert scrolled > 0  # d2l's lines are longer than half the column at the page's size


# ---- 3: copy buttons and the keyboard -------------------------------------------------------


def test_a_copy_button_the_keyboard_reaches_is_seen_with_an_outline(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    page = _open(_context(chromium, contexts, DESKTOP), _html(shipped_site) / GPUS)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('copybtn')"):
            break
    else:
        raise AssertionError("no copy button in the tab order")
    page.wait_for_timeout(400)  # past its fade
    seen = page.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
      return {opacity: Number(s.opacity), outline: s.outlineStyle}; }"""
    )
    assert seen["opacity"] == 1 and seen["outline"] != "none", seen


# ---- 4: nothing moves once shown ------------------------------------------------------------


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_page_moves_after_its_first_paint(
    shipped_site: Path, chromium: Browser, contexts: Any, size: tuple[int, int]
) -> None:
    shifts: dict[str, float] = {}
    for stored in (None, "jax"):
        context = _context(chromium, contexts, size)
        choice = f"localStorage.setItem('polybook.tab', '{stored}');" if stored else ""
        context.add_init_script(WATCH_SHIFTS + choice)
        for path in _pages(shipped_site):
            page = _open(context, path)
            page.wait_for_timeout(300)
            shifts[f"{path.name} {stored}"] = cast(float, page.evaluate("window.pbShift"))
            page.close()
    assert {name: s for name, s in shifts.items() if s > 0.05} == {}


def test_the_front_page_title_follows_the_switcher(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    page = _open(_context(chromium, contexts, DESKTOP), _html(shipped_site) / "index.html")
    gap = page.evaluate(
        """() => document.querySelector('article h1').getBoundingClientRect().top
                 - document.querySelector('.pb-switcher').getBoundingClientRect().bottom"""
    )
    assert 0 <= gap < 80, gap


# ---- 6: what pictures, formulas and pages say ----------------------------------------------


def test_pictures_and_formulas_say_what_they_show(shipped_site: Path) -> None:
    alts, labels = [], []
    for path in _pages(shipped_site):
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        alts += [str(img.get("alt", "")) for img in soup.select(".pb-output img")]
        labels += [str(m.get("aria-label", "")) for m in soup.select(".pb-math[aria-label]")]
    assert alts and labels
    assert [a for a in alts if not a.strip() or a == "cell output"] == []
    assert [label for label in labels if "\\" in label or "{" in label] == []


def test_the_search_page_has_a_heading_and_every_page_a_favicon(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    context = _context(chromium, contexts, DESKTOP)
    failed: list[str] = []
    context.on("requestfailed", lambda request: failed.append(request.url))
    page = _open(context, _html(shipped_site) / "search.html", {"q": "gpu"})
    assert page.locator("h1").count() == 1
    icon = page.evaluate("document.querySelector('link[rel~=icon]')?.href || null")
    assert icon is not None
    page.wait_for_timeout(300)
    assert failed == []


def test_the_page_contents_show_beside_the_text_at_1280(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    page = _open(_context(chromium, contexts, DESKTOP), _html(shipped_site) / TOOLKIT)
    toc = page.evaluate(
        """() => { const r = document.querySelector('.toc-drawer').getBoundingClientRect();
      const text = document.querySelector('article').getBoundingClientRect();
      return {left: r.left, right: r.right, width: r.width, textRight: text.right}; }"""
    )
    assert toc["width"] > 150 and toc["right"] <= 1280 + 1, toc
    assert toc["left"] >= toc["textRight"] - 1, toc  # beside the text, not over it


# ---- 7: without scripts ---------------------------------------------------------------------


def test_without_scripts_the_text_is_the_default_frameworks(
    shipped_site: Path, chromium: Browser
) -> None:
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        shown: list[str] = []
        for path in _pages(shipped_site):
            page.goto(file_url(path))
            shown += page.evaluate(
                """() => [...document.querySelectorAll('.pb-tabset > .pb-panel')]
              .filter((p) => p.getClientRects().length).map((p) => p.dataset.pbTab)"""
            )
        assert shown and set(shown) == {"pytorch"}, sorted(set(shown))
    finally:
        context.close()


# ---- 5: search results ----------------------------------------------------------------------

# Each result shown: its link (page, section), its snippet, and whether the snippet lies in
# the prose the reader's framework shows for that section (the shared text and PyTorch's).
RESULTS = """() => [...document.querySelectorAll('#search-results li')].map((li) => {
  const link = li.querySelector('a');
  const url = new URL(link.href);
  const root = new URL(document.documentElement.dataset.content_root || './', location.href);
  const doc = decodeURIComponent(url.pathname).slice(decodeURIComponent(root.pathname).length)
    .replace(/\\.html$/, '');
  const snippet = li.querySelector('p.context');
  const text = snippet ? snippet.textContent.replace(/^\\.\\.\\.|\\.\\.\\.$/g, '').trim() : '';
  const sections = window.pbSearchPages[doc] || [];
  const id = url.hash.slice(1);
  const section = id ? sections.find((s) => s[0] === id) : sections[0];
  const prose = (s) => ((s[1] || '') + ' ' + ((s[2] || {}).pytorch || '')).trim();
  const squeeze = (t) => t.split(/\\s+/).join(' ');
  return {title: li.innerText.split('\\n')[0], doc, id, snippet: text,
          inSection: !text || (!!section && squeeze(prose(section)).includes(squeeze(text)))};
})"""


@pytest.mark.parametrize("query", ["gpu", "parameters", "layer", "initialization"])
def test_search_results_link_where_their_snippets_come_from(
    shipped_site: Path, chromium: Browser, contexts: Any, query: str
) -> None:
    page = _open(
        _context(chromium, contexts, DESKTOP), _html(shipped_site) / "search.html", {"q": query}
    )
    page.wait_for_function("document.querySelectorAll('#search-results li p.context').length >= 3")
    page.wait_for_timeout(500)  # the rest of the snippets
    results = cast(list[dict[str, Any]], page.evaluate(RESULTS))[:5]
    assert len(results) == 5
    assert [r for r in results if not r["inSection"]] == []
    assert [r["title"] for r in results if " > " in r["title"]] == []
    assert not any(
        "( )" in text or text.strip() == "()"
        for sections in page.evaluate("Object.values(window.pbSearchPages)")
        for section in sections
        for text in [section[1], *section[2].values()]
    )


def test_the_readers_framework_comes_first_among_api_entries(
    shipped_site: Path, chromium: Browser, contexts: Any
) -> None:
    page = _open(
        _context(chromium, contexts, DESKTOP), _html(shipped_site) / "search.html", {"q": "gpu"}
    )
    page.wait_for_function("document.querySelectorAll('#search-results li').length > 4")
    titles = page.eval_on_selector_all(
        "#search-results li > a", "(links) => links.map((a) => a.textContent)"
    )
    api = [t for t in titles if t.startswith("d2l.") and t.endswith(".gpu")]
    assert api and api[0] == "d2l.torch.gpu", titles
