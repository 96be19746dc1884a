"""The compare view (polybook/site/static/polybook-compare.js and polybook-diff.js) in the
system Chromium, over tests/site_fixture/compare.html from ``file://``.

compare.html holds four tab sets (the book's frameworks are pytorch, mxnet, jax, tensorflow):
  set-a: pytorch, jax, tensorflow (code): between pytorch and jax, line 5 of the first
         block differs (the second line of a string written over two lines, highlighted
         differently on each side); lines 1 and 2 differ only by the framework's name
         (`import torch`, `import jax.numpy as jnp`; `torch.ones`, `jnp.ones`), which is not
         a difference; the second block is the same;
  set-b: pytorch, mxnet (prose); set-c: mxnet, tensorflow (code); set-d: jax alone.
compare2.html is the same page under another name (a next page of the same site).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page

from ..browser import OpenPage, file_url, new_context

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parents[1] / "site_fixture"
PAGE = FIXTURE / "compare.html"
OTHER = FIXTURE / "compare2.html"
# The first block of set-a, line by line, and which lines differ between pytorch and jax.
PYTORCH = ["import torch", "x = torch.ones(3)", "y = x * 2", 'print("""one', 'two""")']
JAX = ["import jax.numpy as jnp", "x = jnp.ones(3)", "y = x * 2   ", 'print("""one', 'three""")']
DIFFERING = [4]  # torch.ones and jnp.ones are the same line

# Per tab set: hidden, whether it compares, its selected tabs, its panels shown (in order on
# screen), the tab in the tab order, and its note.
STATE_JS = """() => Array.from(document.querySelectorAll('.pb-tabset')).map((set) => {
  const bar = set.querySelector(':scope > .pb-tabbar');
  const tabs = Array.from(bar.querySelectorAll(':scope > .pb-tab'));
  const panels = Array.from(set.querySelectorAll(':scope > .pb-panel'))
    .filter((p) => !p.hidden && p.getClientRects().length > 0)
    .sort((a, b) => (a.getBoundingClientRect().top - b.getBoundingClientRect().top)
                    || (a.getBoundingClientRect().left - b.getBoundingClientRect().left));
  const note = set.querySelector(':scope > .pb-tools > .pb-compare-note');
  const button = set.querySelector(':scope > .pb-tools > .pb-compare');
  return {
    id: set.id,
    hidden: set.hidden,
    comparing: set.classList.contains('pb-comparing'),
    pressed: button ? button.getAttribute('aria-pressed') : null,
    multiselectable: bar.getAttribute('aria-multiselectable'),
    selected: tabs.filter((t) => t.getAttribute('aria-selected') === 'true')
                  .map((t) => t.dataset.pbTab),
    shown: panels.map((p) => p.dataset.pbTab),
    roles: panels.map((p) => p.getAttribute('role')),
    focusable: tabs.filter((t) => t.getAttribute('tabindex') === '0').map((t) => t.dataset.pbTab),
    note: note && !note.hidden ? note.textContent : '',
  };
})"""


def state(page: Page) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in cast(list[dict[str, Any]], page.evaluate(STATE_JS))}


def marks(page: Page, framework: str) -> list[str]:
    """The text of the marked lines of set-a's panel of ``framework``."""
    found = page.eval_on_selector_all(
        f"#set-a > .pb-panel[data-pb-tab='{framework}'] mark.pb-diff",
        "(ms) => ms.map((m) => m.textContent)",
    )
    return cast(list[str], found)


def code(page: Page, framework: str) -> list[str]:
    """The text of set-a's code blocks of ``framework``."""
    found = page.eval_on_selector_all(
        f"#set-a > .pb-panel[data-pb-tab='{framework}'] div.highlight-python pre",
        "(ps) => ps.map((p) => p.textContent)",
    )
    return cast(list[str], found)


def stored(page: Page, key: str) -> str | None:
    return cast("str | None", page.evaluate("(k) => localStorage.getItem(k)", key))


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


@pytest.fixture
def window_size() -> tuple[int, int]:
    return (1200, 800)


@pytest.fixture
def start_page() -> Path:
    return PAGE


def test_the_address_opens_the_page_comparing_two_frameworks(open_page: OpenPage) -> None:
    page = open_page(query={"compare": "pytorch,JAX"})
    sets = state(page)
    a = sets["set-a"]
    assert (a["comparing"], a["pressed"], a["multiselectable"]) == (True, "true", "true")
    assert a["selected"] == ["pytorch", "jax"]
    assert a["shown"] == ["pytorch", "jax"] and a["roles"] == ["tabpanel", "tabpanel"]
    assert a["focusable"] == ["pytorch"]
    top = page.eval_on_selector_all(
        "#set-a > .pb-panel:not([hidden])", "(ps) => ps.map((p) => p.getBoundingClientRect().top)"
    )
    assert top[0] == top[1]  # side by side
    assert sets["set-b"]["shown"] == ["pytorch"]  # it has no JAX version: says so
    assert sets["set-b"]["note"] == "No JAX version here"
    assert sets["set-c"]["hidden"]  # neither framework
    # JAX alone: no compare button; shown, as the page compares PyTorch with JAX.
    assert sets["set-d"]["shown"] == ["jax"] and sets["set-d"]["pressed"] is None
    assert page.get_attribute(".pb-compare-all", "aria-pressed") == "true"
    lists = page.eval_on_selector_all(".pb-pair select", "(ss) => ss.map((s) => s.value)")
    assert lists == ["pytorch", "jax"]
    assert stored(page, "polybook.compare") == "jax"
    assert stored(page, "polybook.tab") == "pytorch"


def test_the_lines_that_differ_are_marked_and_unmarked(open_page: OpenPage) -> None:
    page = open_page()
    before = page.inner_html("#set-a > .pb-panel[data-pb-tab='pytorch']")
    page.click("#set-a .pb-compare")
    assert state(page)["set-a"]["shown"] == ["pytorch", "jax"]  # jax: the set's next one
    assert marks(page, "pytorch") == [PYTORCH[i] for i in DIFFERING]
    assert marks(page, "jax") == [JAX[i] for i in DIFFERING]
    # The code reads as it did (copy buttons copy it), highlighted as it was.
    assert code(page, "pytorch") == ["\n".join(PYTORCH) + "\n", "y.sum()\n"]
    assert code(page, "jax") == ["\n".join(JAX) + "\n", "y.sum()\n"]
    assert page.locator("#set-a .pb-output mark").count() == 0  # outputs are not compared
    spans = "#set-a > .pb-panel[data-pb-tab='jax'] mark.pb-diff span.s2"
    assert page.eval_on_selector_all(spans, "(s) => s.map((e) => e.textContent)") == ['three"""']
    status = page.locator("[role=status]")
    status.filter(has_text="Comparing PyTorch and JAX: 1 and 1 lines differ").wait_for()
    page.click("#set-a .pb-compare")  # closed: the markup is back as it was
    assert not state(page)["set-a"]["comparing"]
    assert page.inner_html("#set-a > .pb-panel[data-pb-tab='pytorch']") == before
    assert state(page)["set-a"]["shown"] == ["pytorch"]
    status.filter(has_text="Compare view closed").wait_for()


def test_the_diff_is_a_longest_common_subsequence(open_page: OpenPage) -> None:
    page = open_page()
    found = page.evaluate(
        "() => polybookDiff.lines(['a', 'b', 'c', 'd', 'e'], ['a', 'c', 'x', 'd  ', 'e', 'f'])"
    )
    assert found == {
        "a": [False, True, False, False, False],
        "b": [False, False, True, False, False, True],
    }
    assert page.evaluate("() => polybookDiff.lines([], ['a'])") == {"a": [], "b": [True]}


def test_lines_differ_by_meaning_not_by_the_frameworks_names(open_page: OpenPage) -> None:
    page = open_page()
    same = [
        ["import torch", "import tensorflow as tf"],
        ["from d2l import torch as d2l", "from d2l import tensorflow as d2l"],
        ["x = torch.ones((2, 3))", "x = tf.ones((2, 3))"],
        ["y = mx.np.zeros(3)", "y = jnp.zeros(3)"],
        ["    A = d2l.randn((n, n))", "        A = d2l.randn((n,  n))"],  # indent, spaces
        ["print(np.exp(x))  # PyTorch", "print(npx.exp(x))  # JAX"],
    ]
    differ = [
        ["x = torch.ones(3)", "x = torch.zeros(3)"],
        ["net = nn.Sequential(nn.LazyLinear(1))", "net = tf.keras.Sequential([Dense(1)])"],
        ["torchvision.io", "tfds.io"],  # names that only start like a framework's
    ]
    for left, right in same + differ:
        found = page.evaluate("([a, b]) => polybookDiff.lines([a], [b]).a[0]", [left, right])
        assert found == ([left, right] in differ), (left, right)


def test_links_carry_the_view_and_storage_keeps_only_the_pair(open_page: OpenPage) -> None:
    page = open_page()
    page.click(".pb-compare-all")  # every set: PyTorch beside the book's next framework
    sets = state(page)
    assert sets["set-b"]["shown"] == ["pytorch", "mxnet"]
    assert (
        sets["set-a"]["shown"] == ["pytorch"] and sets["set-a"]["note"] == "No MXNet version here"
    )
    assert stored(page, "polybook.compare") == "mxnet"
    assert query(page)["compare"] == ["pytorch,mxnet"]
    other = open_page(OTHER)  # the next page, without ?compare=: it does not compare
    assert not state(other)["set-a"]["comparing"]
    other.click(".pb-compare-all")  # its switch starts with the stored pair
    assert state(other)["set-b"]["shown"] == ["pytorch", "mxnet"]
    with other.expect_navigation():
        other.evaluate("() => localStorage.clear()")  # the link carries it without storage
        other.click("#to-other")
    assert query(other)["compare"] == query(page)["compare"]
    assert state(other)["set-a"]["comparing"]
    other.click(".pb-compare-all")  # switched off: no longer in the address
    assert "compare" not in query(other)
    assert not open_page(PAGE).evaluate("() => document.querySelector('.pb-comparing')")


def test_keyboard_compares_picks_and_swaps(open_page: OpenPage) -> None:
    page = open_page()
    page.focus("#set-a .pb-compare")
    page.keyboard.press("Enter")
    assert state(page)["set-a"]["selected"] == ["pytorch", "jax"]
    page.focus("#set-a .pb-tab[data-pb-tab='pytorch']")
    page.keyboard.press("ArrowRight")  # the arrows move the focus, not the pair
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("() => document.activeElement.dataset.pbTab")
    assert focused == "tensorflow" and state(page)["set-a"]["selected"] == ["pytorch", "jax"]
    assert state(page)["set-a"]["focusable"] == ["tensorflow"]  # roving tabindex
    page.keyboard.press("Enter")  # the focused tab becomes the second framework
    assert state(page)["set-a"]["shown"] == ["pytorch", "tensorflow"]
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")  # wraps to the end
    assert page.evaluate("() => document.activeElement.dataset.pbTab") == "tensorflow"
    page.keyboard.press("Space")  # the second one: the two swap
    assert state(page)["set-a"]["shown"] == ["tensorflow", "pytorch"]
    assert stored(page, "polybook.tab") == "tensorflow"
    page.focus(".pb-compare-all")  # the page-level switch and its lists
    page.keyboard.press("Enter")
    assert state(page)["set-a"]["shown"] == ["tensorflow", "pytorch"]
    page.focus(".pb-pair select[data-pb-side='2']")
    page.keyboard.press("ArrowDown")  # PyTorch -> MXNet, which set-a lacks
    assert state(page)["set-a"]["shown"] == ["tensorflow"]
    assert state(page)["set-a"]["note"] == "No MXNet version here"
    assert query(page)["compare"] == ["tensorflow,mxnet"]


def test_the_panels_stack_on_narrow_screens(chromium: Browser) -> None:
    with new_context(chromium, width=420, height=800) as narrow:
        page = narrow.new_page()
        page.goto(file_url(PAGE, {"compare": "pytorch,jax"}))
        boxes = page.eval_on_selector_all(
            "#set-a > .pb-panel:not([hidden])",
            "(ps) => ps.map((p) => { const r = p.getBoundingClientRect();"
            " return [r.top, r.bottom, r.width]; })",
        )
        (_, bottom1, width1), (top2, _, width2) = boxes
        assert top2 >= bottom1 - 1  # one under the other, each the whole width
        assert abs(width1 - width2) < 1
        assert state(page)["set-a"]["shown"] == ["pytorch", "jax"]


def test_tabs_work_as_before_where_nothing_compares(open_page: OpenPage) -> None:
    page = open_page()
    page.click("#set-a .pb-tab[data-pb-tab='jax']")
    sets = state(page)
    assert sets["set-a"]["selected"] == ["jax"] and sets["set-a"]["shown"] == ["jax"]
    assert sets["set-a"]["multiselectable"] is None
    assert sets["set-b"]["hidden"] and sets["set-d"]["shown"] == ["jax"]
    assert "compare" not in query(page) and stored(page, "polybook.compare") is None
