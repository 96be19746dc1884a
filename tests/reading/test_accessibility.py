"""WCAG 2.1 AA on the shipped book's site (the ``shipped_site`` fixture): axe-core (npm,
``requirements/node``, injected into each page) finds no serious or critical violation on
any page, in Furo's light and dark themes, the compare view included; and what axe cannot
judge alone: the tabs' ARIA in the HTML itself, alt text from captions, badges as notes,
visible focus, and scrolling boxes that a keyboard reaches."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from bs4 import BeautifulSoup
from playwright.sync_api import Browser, Page

from polybook.paths import node_modules

from ..browser import file_url, new_context, watch_errors

pytestmark = pytest.mark.slow

AXE = node_modules() / "axe-core" / "axe.min.js"
GPUS = "chapter_builders-guide/use-gpu.html"
# Each violation of impact serious or critical: rule, impact, the first nodes and why.
AXE_RUN = """async () => {
  // No preload: from file:// it would fetch the stylesheets, which the browser refuses.
  const result = await axe.run(document, {resultTypes: ['violations'], preload: false});
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({rule: v.id, impact: v.impact,
                  nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ': '
                                                  + (n.failureSummary || ''))}));
}"""


def _pages(html: Path) -> list[Path]:
    return sorted(p for p in html.rglob("*.html") if "_static" not in p.parts)


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _violations(page: Page, url: str) -> list[dict[str, Any]]:
    page.goto(url)
    page.add_script_tag(path=str(AXE))
    return cast(list[dict[str, Any]], page.evaluate(AXE_RUN))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_serious_on_any_page(
    shipped_site: Path, chromium: Browser, theme: str
) -> None:
    assert AXE.is_file(), f"{AXE} missing: run `make setup` (npm ci in .envs/node)"
    html = shipped_site / "_build" / "html"
    found: dict[str, list[dict[str, Any]]] = {}
    with new_context(chromium) as context:
        context.add_init_script(f"localStorage.setItem('theme', '{theme}')")  # Furo's switch
        page = context.new_page()
        errors = watch_errors(page)
        for path in _pages(html):
            name = path.relative_to(html).as_posix()
            found[name] = _violations(page, file_url(path))
            if name == GPUS:  # as the theme says, in the colours of the theme
                assert page.evaluate("document.body.dataset.theme") == theme
                shade = page.evaluate(
                    "getComputedStyle(document.body).backgroundColor.match(/\\d+/g)"
                    ".slice(0, 3).reduce((a, b) => a + Number(b), 0)"
                )
                assert (shade < 200) == (theme == "dark"), shade
        # The compare view: two panels, the differing lines marked, the page's controls.
        found["compare view"] = _violations(page, file_url(html / GPUS) + "?compare=pytorch,jax")
        assert page.locator("mark.pb-diff").count() > 0
        assert page.locator(".pb-comparing").count() > 0
        assert errors == []
    problems = {name: v for name, v in found.items() if v}
    assert problems == {}
    assert len(found) == len(_pages(html)) + 1


def test_tabs_carry_their_aria_in_the_html(shipped_site: Path) -> None:
    html = shipped_site / "_build" / "html"
    sets = 0
    for path in _pages(html):
        soup = _soup(path)
        for bar in soup.select(".pb-tabset > [role=tablist]"):
            sets += 1
            tabs = bar.select("[role=tab]")
            assert bar.get("aria-label"), path
            assert [t["tabindex"] for t in tabs].count("0") == 1, path  # roving tabindex
            assert [t["aria-selected"] for t in tabs].count("true") == 1, path
            for tab in tabs:
                panel = soup.find(id=str(tab["aria-controls"]))
                assert panel is not None and panel.get("role") == "tabpanel", (path, tab)
                assert panel["aria-labelledby"] == tab["id"]
                assert panel["data-pb-tab"] == tab["data-pb-tab"]
    assert sets > 20
    badges = _soup(html / GPUS).select(".pb-badge")
    assert badges and all(b.get("role") == "note" for b in badges)
    assert all(b.select_one(".pb-sr-only").get_text() == "Note: " for b in badges)  # type: ignore[union-attr]


def test_figures_are_described_by_their_captions(shipped_site: Path) -> None:
    html = shipped_site / "_build" / "html"
    [figure] = _soup(html / GPUS).select("figure")
    image, caption = figure.select_one("img"), figure.select_one("figcaption")
    assert image is not None and caption is not None
    assert str(image["alt"]).startswith("Each device computes only on its own memory: to ")
    assert "`" not in str(image["alt"])  # the caption's markup is not read out
    for path in _pages(html):
        for img in _soup(path).select("article img"):
            assert str(img.get("alt", "")).strip(), (path, img)


def test_focus_is_visible_and_scrolling_boxes_are_reachable(
    shipped_site: Path, chromium: Browser
) -> None:
    html = shipped_site / "_build" / "html"
    with new_context(chromium, width=600) as context:
        page = context.new_page()
        page.goto(file_url(html / GPUS))
        page.focus(".pb-tabset .pb-tab[aria-selected=true]")
        page.keyboard.press("ArrowRight")  # focus moved by keyboard: focus-visible
        outline = page.evaluate(
            "(() => { const s = getComputedStyle(document.activeElement);"
            " return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()"
        )
        assert outline[0] != "none" and outline[1] >= 2
        for selector in (".pb-compare", ".pb-compare-all"):
            page.focus(selector)
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Tab")
            style = page.eval_on_selector(selector, "(e) => getComputedStyle(e).outlineStyle")
            assert style != "none", selector
        # PyTorch's outputs of this page hold lines wider than 600 pixels.
        page.goto(file_url(html / "chapter_builders-guide" / "parameters.html", {"tab": "pytorch"}))
        wide = page.eval_on_selector_all(
            "article pre",
            "(ps) => ps.filter((p) => p.scrollWidth > p.clientWidth + 1)"
            ".map((p) => p.getAttribute('tabindex'))",
        )
        assert wide and set(wide) == {"0"}  # every box that scrolls is in the tab order
        page.set_viewport_size({"width": 1400, "height": 800})  # wider: fewer boxes scroll
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('article pre[data-pb-scroll]'))"
            ".every((p) => p.scrollWidth > p.clientWidth + 1)"
        )
