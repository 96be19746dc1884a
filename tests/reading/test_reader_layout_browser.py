"""The reader's layout on the shipped book's site (the ``shipped_site`` fixture), in Chromium
at a laptop's 1366×900 and a phone's 390×844, in Furo's light and dark themes: the page's
framework switcher stays on screen and switches every tab set, a tab set's bar stays on
screen while its block is, the tabs and the Compare button share a row on a phone, and code
that scrolls sideways shows a cue."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, Page

from ..browser import file_url, watch_errors

pytestmark = pytest.mark.slow

GPUS = "chapter_builders-guide/use-gpu.html"
TOOLKIT = "chapter_builders-guide/toolkit.html"
SIZES = {"laptop": (1366, 900), "phone": (390, 844)}
THEMES = ("light", "dark")

# Scrolls to the middle of the tallest code tab set; its bar's and the switcher's boxes.
MIDDLE_OF_TALLEST = """() => {
  const sets = [...document.querySelectorAll('.pb-tabset[data-pb-kind="code"]')]
    .filter((s) => !s.hidden);
  const tallest = sets.sort((a, b) => b.offsetHeight - a.offsetHeight)[0];
  const top = tallest.getBoundingClientRect().top + window.scrollY;
  window.scrollTo({top: top + tallest.offsetHeight / 2, behavior: 'instant'});
  const box = (el) => { const r = el.getBoundingClientRect();
                        return {top: r.top, bottom: r.bottom}; };
  return {height: tallest.offsetHeight, set: box(tallest),
          bar: box(tallest.querySelector(':scope > .pb-tabbar')),
          switcher: box(document.querySelector('.pb-switcher'))};
}"""


@pytest.fixture(params=[(size, theme) for size in SIZES for theme in THEMES], ids=str)
def page(chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page of the given size and theme (Furo's own switch); no script error allowed."""
    size, theme = request.param
    width, height = SIZES[size]
    context = chromium.new_context(viewport={"width": width, "height": height})
    context.add_init_script(f"localStorage.setItem('theme', '{theme}')")
    opened = context.new_page()
    errors = watch_errors(opened)
    yield opened
    context.close()
    assert errors == []


def _open(page: Page, site: Path, name: str) -> Page:
    page.goto(file_url(site / "_build" / "html" / name))
    page.wait_for_function("document.documentElement.dataset.pbTab")
    return page


def _chosen(page: Page) -> dict[str, Any]:
    return cast(
        dict[str, Any],
        page.evaluate(
            """() => ({
      pressed: [...document.querySelectorAll('.pb-switcher [aria-pressed="true"]')]
        .map((b) => b.dataset.pbChoose),
      selected: [...new Set([...document.querySelectorAll('.pb-tab[aria-selected="true"]')]
        .filter((t) => !t.closest('.pb-tabset').hidden).map((t) => t.dataset.pbTab))],
    })"""
        ),
    )


def test_the_switcher_and_the_blocks_bar_stay_on_screen_in_a_long_block(
    shipped_site: Path, page: Page
) -> None:
    _open(page, shipped_site, GPUS)
    viewport = page.viewport_size
    assert viewport is not None
    found = page.evaluate(MIDDLE_OF_TALLEST)
    page.wait_for_timeout(100)  # the scroll is laid out
    found = page.evaluate(MIDDLE_OF_TALLEST)
    assert found["height"] > viewport["height"] / 2, found  # a long block, scrolled into
    switcher, bar = found["switcher"], found["bar"]
    assert 0 <= switcher["top"] < 80, found  # under the theme's header, on screen
    assert abs(bar["top"] - switcher["bottom"]) <= 2, found  # just under the switcher
    assert found["set"]["top"] < bar["top"] < found["set"]["bottom"], found


def test_choosing_in_the_switcher_switches_every_tab_set_and_a_tab_the_switcher(
    shipped_site: Path, page: Page
) -> None:
    _open(page, shipped_site, GPUS)
    assert _chosen(page) == {"pressed": ["pytorch"], "selected": ["pytorch"]}
    page.locator('.pb-switcher [data-pb-choose="jax"]').click()
    assert _chosen(page) == {"pressed": ["jax"], "selected": ["jax"]}
    assert page.evaluate("localStorage.getItem('polybook.tab')") == "jax"
    page.locator('.pb-tabset:not([hidden]) .pb-tab[data-pb-tab="tensorflow"]').first.click()
    assert _chosen(page) == {"pressed": ["tensorflow"], "selected": ["tensorflow"]}
    # The choice follows the reader to the next page (a link carries it), and its switcher
    # says so.
    with page.expect_navigation():
        page.evaluate("document.querySelector('a[href^=\"toolkit.html\"]').click()")
    page.wait_for_function("document.documentElement.dataset.pbTab")
    assert _chosen(page)["pressed"] == ["tensorflow"]


def test_the_tabs_and_the_compare_button_share_a_row(shipped_site: Path, page: Page) -> None:
    _open(page, shipped_site, GPUS)
    rows = page.evaluate(
        """() => [...document.querySelectorAll('.pb-tabset:not([hidden])')].map((set) => {
      const bar = set.querySelector(':scope > .pb-tabbar').getBoundingClientRect();
      const tools = set.querySelector(':scope > .pb-tools').getBoundingClientRect();
      const last = [...set.querySelectorAll(':scope > .pb-tabbar > .pb-tab')].pop()
        .getBoundingClientRect();
      return {same: Math.abs(bar.top - tools.top) < 1, fits: last.right <= tools.left + 1};
    })"""
    )
    assert rows and all(row["same"] for row in rows), rows
    assert all(row["fits"] for row in rows), rows  # every tab in sight, none under Compare


def test_code_that_scrolls_sideways_shows_a_cue(shipped_site: Path, page: Page) -> None:
    _open(page, shipped_site, TOOLKIT)
    found = page.evaluate(
        """() => [...document.querySelectorAll('.pb-tabset:not([hidden]) pre')]
      .filter((pre) => pre.getClientRects().length)
      .map((pre) => ({wide: pre.scrollWidth > pre.clientWidth + 1,
                      cue: getComputedStyle(pre).boxShadow !== 'none'}))"""
    )
    assert found
    assert all(box["cue"] == box["wide"] for box in found), found
    if page.viewport_size and page.viewport_size["width"] < 500:
        assert any(box["wide"] for box in found)  # a phone has some to show


@pytest.mark.parametrize("fw", ["pytorch", "mxnet", "jax", "tensorflow"])
def test_every_api_entry_shows_a_description(shipped_site: Path, page: Page, fw: str) -> None:
    page.goto(file_url(shipped_site / "_build" / "html" / "api" / f"{fw}.html"))
    found = page.evaluate(
        """() => [...document.querySelectorAll('dl.py')].map((dl) => ({
      id: dl.querySelector('dt').id,
      said: [...dl.querySelectorAll(':scope > dd > p')].map((p) => p.innerText.trim())
        .filter((text) => text && !/^(Bases|Defined in)\\b/.test(text)).length > 0,
      shown: dl.querySelector(':scope > dd').getBoundingClientRect().height > 0,
    }))"""
    )
    assert len(found) >= 20
    assert [entry["id"] for entry in found if not (entry["said"] and entry["shown"])] == []


SEARCH_RESULTS = """() => [...document.querySelectorAll('#search-results li')].map((li) => ({
  title: li.querySelector('a').textContent,
  href: li.querySelector('a').getAttribute('href'),
  where: (li.querySelector('.pb-search-where') || {textContent: ''}).textContent,
  snippet: (li.querySelector('p.context') || {textContent: ''}).textContent,
  api: li.classList.contains('kind-object') || /^api\\//.test(li.querySelector('a')
    .getAttribute('href')),
}))"""


# The reader chose MXNet on an earlier page. (Set before the page's scripts run: a value set
# on another page reaches a new one only once the browser has saved it.)
CHOOSE_MXNET = "localStorage.setItem('polybook.tab', 'mxnet')"


def _search(page: Page, site: Path, query: str) -> list[dict[str, Any]]:
    page.goto(file_url(site / "_build" / "html" / "search.html", {"q": query}))
    page.locator("#search-results li p.context").first.wait_for(timeout=20000)
    page.wait_for_function(
        "[...document.querySelectorAll('#search-results li')]"
        ".every((li) => li.hasAttribute('data-pb-where'))"
        " && document.querySelectorAll('#search-results li').length > 0"
    )
    page.wait_for_timeout(500)  # the last snippets are fetched
    return cast(list[dict[str, Any]], page.evaluate(SEARCH_RESULTS))


def test_search_ranks_whole_words_and_pages_first_and_says_where(
    shipped_site: Path, page: Page
) -> None:
    results = _search(page, shipped_site, "tensor")
    kinds = [r["api"] for r in results]
    assert kinds[0] is False and kinds == sorted(kinds), results  # pages, then the API
    api = [r["title"] for r in results if r["api"] and r["title"].startswith("d2l.")]
    whole = ["tensor" in t.lower().replace("_", ".").split(".") for t in api]
    assert whole[0] and whole == sorted(whole, reverse=True), api  # partial matches last
    pages = [r for r in results if not r["api"]]
    assert any(r["where"].startswith(" › ") and "#" in r["href"] for r in pages), pages
    names = {"PyTorch", "MXNet", "JAX", "TensorFlow"}
    assert all(r["where"][3:] in names for r in results if r["api"]), results


def test_search_snippets_are_prose_of_the_chosen_framework(shipped_site: Path, page: Page) -> None:
    page.add_init_script(CHOOSE_MXNET)
    results = _search(page, shipped_site, "packages")
    [gpus] = [r for r in results if r["href"].startswith("chapter_builders-guide/use-gpu")]
    assert "MXNet publishes separate packages" in gpus["snippet"], gpus
    assert "PyTorch packages for CUDA" not in gpus["snippet"], gpus
    data = page.evaluate("window.pbSearchPages['chapter_builders-guide/toolkit']")
    text = " ".join(s[1] + " " + " ".join(s[2].values()) for s in data)
    assert "def try_gpu(" not in text and "return d2l.gpu(i)" not in text  # no code


def test_a_snippet_asked_for_before_the_tabs_start_is_the_chosen_frameworks(
    shipped_site: Path, page: Page
) -> None:
    """Sphinx's search may fetch a result while the page is still starting, before the tabs
    know the reader's choice: the snippet is still of that framework (here PyTorch, whose
    prose is not the first one that holds the query)."""
    page.add_init_script("localStorage.setItem('polybook.tab', 'pytorch')")
    page.add_init_script(  # a listener ahead of every script of the page
        """document.addEventListener('DOMContentLoaded', () => {
      window.pbEarly = fetch('chapter_builders-guide/use-gpu.html').then((r) => r.text());
    });"""
    )
    search = shipped_site / "_build" / "html" / "search.html"
    page.goto(file_url(search, {"q": "packages"}))
    text = page.evaluate("window.pbEarly")
    assert "PyTorch packages for CUDA" in text
    assert "MXNet publishes separate packages" not in text


def test_the_front_page_is_compact_and_says_what_it_shows(shipped_site: Path, page: Page) -> None:
    _open(page, shipped_site, "index.html")
    found = page.evaluate(
        """() => ({
      tops: [...document.querySelectorAll('.pb-downloads > a')]
        .filter((a) => a.getClientRects().length).map((a) => a.getBoundingClientRect().top),
      text: document.querySelector('article').innerText,
      switcher: !!document.querySelector('.pb-switcher button'),
    })"""
    )
    assert found["tops"] and len({round(top) for top in found["tops"]}) == 1, found  # one row
    assert "at the top of the page" in found["text"] and found["switcher"]


def test_outputs_read_apart_from_code_and_code_names_are_not_underlined(
    shipped_site: Path, page: Page
) -> None:
    _open(page, shipped_site, TOOLKIT)
    found = page.evaluate(
        """() => {
      const out = document.querySelector('.pb-tabset:not([hidden]) .pb-output:not(.pb-stderr)');
      const code = out.parentElement.querySelector('div[class*="highlight"]');
      const name = document.querySelector('.highlight .nn');
      const style = (el) => getComputedStyle(el);
      return {out: style(out).backgroundColor, code: style(code).backgroundColor,
              edge: style(out).borderLeftWidth, line: style(name).textDecorationLine};
    }"""
    )
    assert found["line"] == "none", found
    assert found["out"] != found["code"] or found["edge"] != "0px", found


def test_plots_are_svg_drawings_sharp_at_any_size(shipped_site: Path, page: Page) -> None:
    _open(page, shipped_site, TOOLKIT)
    images = page.locator(".pb-tabset:not([hidden]) > .pb-panel:not([hidden]) .pb-output img")
    for k in range(images.count()):  # they load when shown
        images.nth(k).scroll_into_view_if_needed()
        images.nth(k).evaluate("(img) => img.decode()")
    found = page.evaluate(
        """() => [...document.querySelectorAll(
        '.pb-tabset:not([hidden]) > .pb-panel:not([hidden]) .pb-output img')]
      .map((img) => ({src: img.getAttribute('src'), drawn: img.complete && img.naturalWidth > 0,
                      width: img.getBoundingClientRect().width}))"""
    )
    assert found, "the Toolkit page draws its ProgressBoard"
    assert all(img["src"].endswith(".svg") and img["drawn"] for img in found), found
    viewport = page.viewport_size
    assert viewport is not None and all(img["width"] <= viewport["width"] for img in found)


COMPARED = """() => [...document.querySelectorAll('.pb-tabset.pb-comparing')].map((set) => {
  const sides = [...set.querySelectorAll(':scope > .pb-panel')].filter((p) => !p.hidden)
    .map((p) => p.querySelector('div[class*="highlight-"]:not(.highlight-none) pre'));
  return sides.map((pre) => pre && {height: pre.getBoundingClientRect().height,
                                    shown: pre.getClientRects().length > 0});
}).filter((sides) => sides.length === 2 && sides[0] && sides[1])"""


def test_the_compare_view_aligns_rows_and_scrolls_both_sides_together(
    shipped_site: Path, page: Page
) -> None:
    page.goto(file_url(shipped_site / "_build" / "html" / TOOLKIT, {"compare": "pytorch,jax"}))
    page.wait_for_function("document.querySelector('.pb-tabset.pb-comparing mark.pb-diff')")
    sets = page.evaluate(COMPARED)
    assert len(sets) >= 5
    viewport = page.viewport_size
    assert viewport is not None
    if viewport["width"] > 1000:  # side by side: as many rows on both sides
        assert all(abs(a["height"] - b["height"]) <= 1 for a, b in sets), sets
        assert page.locator(".pb-gap").count() > 0
        moved = page.evaluate(
            """async () => {
          const boxes = [...document.querySelectorAll('.pb-tabset.pb-comparing')]
            .map((set) => [...set.querySelectorAll(':scope > .pb-panel:not([hidden]) .highlight')])
            .find((pair) => pair.length === 2);
          // Compared code fits side by side: narrowed, the two boxes scroll.
          boxes.forEach((box) => { box.style.width = '120px'; });
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)));
          boxes[0].scrollLeft = 60;
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)));
          return [boxes[0].scrollLeft, boxes[1].scrollLeft];
        }"""
        )
        assert moved[0] > 0 and moved[1] == moved[0], moved
    else:  # a phone: the two sides one after the other; the second side's tab swaps them
        assert all(a["shown"] and b["shown"] for a, b in sets), sets
        page.locator('.pb-tabset.pb-comparing .pb-tab[data-pb-side="2"]').first.click()
        assert page.evaluate("polybookTabs.current()") == "jax"


def test_plots_are_drawings_that_fit_the_screen(shipped_site: Path, page: Page) -> None:
    """Matplotlib's figures are SVG (sharp at any pixel density), drawn within the column."""
    _open(page, shipped_site, TOOLKIT)
    plots = page.evaluate(
        """async () => {
      const imgs = [...document.querySelectorAll('.pb-tabset:not([hidden]) .pb-output img')]
        .filter((img) => !img.closest('[hidden]'));
      for (const img of imgs) { img.loading = 'eager'; img.scrollIntoView(); await img.decode(); }
      return imgs.map((img) => ({src: img.getAttribute('src'), natural: img.naturalWidth,
        right: img.getBoundingClientRect().right, column: img.closest('article')
          .getBoundingClientRect().right}));
    }"""
    )
    assert plots, "the Toolkit shows its boards' plots"
    for plot in plots:
        assert plot["src"].endswith(".svg") and plot["natural"] > 0, plot
        assert plot["right"] <= plot["column"] + 1, plot


def test_math_is_drawn_at_build_time_and_pages_stay_light(shipped_site: Path, page: Page) -> None:
    loaded: list[str] = []
    page.on("requestfinished", lambda request: loaded.append(request.url))
    page.goto(file_url(shipped_site / "_build" / "html" / TOOLKIT), wait_until="networkidle")
    math = page.evaluate(
        """() => [...document.querySelectorAll('.pb-math')].map((m) => ({
      label: m.getAttribute('aria-label'), role: m.getAttribute('role'),
      width: m.querySelector('svg').getBoundingClientRect().width}))"""
    )
    assert len(math) >= 9, math  # the Toolkit's formulas
    assert all(m["role"] == "img" and m["label"] and m["width"] > 0 for m in math), math
    assert not [url for url in loaded if "mathjax" in url.lower()]  # no runtime, no fonts
    html = shipped_site / "_build" / "html"
    files = {Path(url.split("?")[0].removeprefix("file://")) for url in loaded}
    weight = sum(path.stat().st_size for path in files if path.is_file() and html in path.parents)
    assert weight <= 500_000, weight
