"""The framework chosen from the address and kept on screen, on the shipped book's site
(the ``shipped_site`` fixture) in Chromium: ``?tab=`` takes the short names readers type
(``tf``, ``torch``, ``mx``, ``flax``) in any case, and choosing a framework in the sticky
switcher leaves the block being read where it was, as clicking a code tab does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from ..browser import file_url, watch_errors

pytestmark = pytest.mark.slow
TOOLKIT = "chapter_builders-guide/toolkit.html"

# The first block in view under the sticky bars that stays shown once `name` is chosen:
# text outside the tab sets, or a tab set that has `name`. Marked, and its top returned.
FIRST_IN_VIEW = """(name) => {
  const below = document.querySelector('.pb-switcher').getBoundingClientRect().bottom;
  const blocks = document.querySelectorAll(
    'article p, article li, article h2, article h3, article .pb-tabset');
  const block = [...blocks].find((el) => {
    if (el.parentElement.closest('.pb-tabset')) return false;
    if (el.classList.contains('pb-tabset')
        && !el.querySelector(`:scope > .pb-tabbar > [data-pb-tab="${name}"]`)) return false;
    const box = el.getBoundingClientRect();
    return box.height > 0 && box.bottom > below;
  });
  const old = document.querySelector('[data-pb-watched]');
  if (old) old.removeAttribute('data-pb-watched');
  block.setAttribute('data-pb-watched', '');
  return block.getBoundingClientRect().top;
}"""
WATCHED_TOP = "() => document.querySelector('[data-pb-watched]').getBoundingClientRect().top"


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    context: BrowserContext = chromium.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(5000)
    opened = context.new_page()
    errors = watch_errors(opened)
    yield opened
    context.close()
    assert errors == []


def _tab(page: Page, path: Path, value: str) -> str:
    page.goto(file_url(path, {"tab": value}))
    page.wait_for_function("document.documentElement.dataset.pbTab")
    return str(page.evaluate("document.documentElement.dataset.pbTab"))


def test_the_address_takes_the_frameworks_short_names_in_any_case(
    shipped_site: Path, page: Page
) -> None:
    path = shipped_site / "_build" / "html" / TOOLKIT
    wanted = {"tf": "tensorflow", "TF": "tensorflow", "torch": "pytorch", "mx": "mxnet"}
    wanted |= {"flax": "jax", "Flax": "jax", "TensorFlow": "tensorflow", "PYTORCH": "pytorch"}
    for value, framework in wanted.items():
        assert _tab(page, path, value) == framework, value


def test_the_sticky_switcher_keeps_the_block_being_read_in_place(
    shipped_site: Path, page: Page
) -> None:
    path = shipped_site / "_build" / "html" / TOOLKIT
    assert _tab(page, path, "pytorch") == "pytorch"
    height = page.evaluate("document.documentElement.scrollHeight")
    moved: dict[str, float] = {}
    for share in (0.2, 0.4, 0.6):
        page.evaluate(f"window.scrollTo(0, {int(height * share)})")
        for name in ("jax", "tensorflow", "mxnet", "pytorch"):
            before = page.evaluate(FIRST_IN_VIEW, name)
            box = page.locator(f'.pb-switcher [data-pb-choose="{name}"]').bounding_box()
            assert box is not None
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_function(f"document.documentElement.dataset.pbTab === '{name}'")
            page.evaluate(
                "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
            )
            moved[f"{share} {name}"] = page.evaluate(WATCHED_TOP) - before
    assert {k: d for k, d in moved.items() if abs(d) > 1} == {}
