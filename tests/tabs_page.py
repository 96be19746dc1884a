"""The framework tabs' fixture pages (tests/site_fixture/) and how their state is read
back: shared by the browser tests of the tabs and of the reader's choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page

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
