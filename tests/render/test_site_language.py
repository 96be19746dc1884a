"""The site in the book's language (``[project] lang``): a Chinese book built end to end is
searched for Chinese words in headless Chromium from ``file://``, and every string polybook
adds to its pages (notebook links, GPU notes, the compare view) comes from the Chinese
message catalog."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from polybook.render import messages
from polybook.render.sphinx.config import sphinx_language
from polybook.site.settings import STATIC

from ..books import FENCE, build, pages_book
from ..browser import file_url, new_context, offline_page, watch_errors

CONFIG = "[project]\nname = zh\ntitle = 动手学\nlang = zh\n\n[build]\ntabs = pytorch\n"
PAGES = {
    "线性回归": "线性回归是最简单的模型。我们用梯度下降训练它。\n\n"
    f"{FENCE}{{.python .input}}\n#@requires gpus=2\nz = 1\n{FENCE}\n",
    "卷积": "卷积神经网络处理图像。\n\n![一张图](img.svg)\n:label:`fig_conv`\n",
}


def test_every_catalog_holds_the_english_keys_and_fields() -> None:
    english = messages.catalog("en")
    assert set(messages.languages()) >= {"en", "zh"}
    for lang in messages.languages():
        own = json.loads((messages.CATALOG / f"{lang}.json").read_text(encoding="utf-8"))
        assert set(own) == set(english), lang
        for key, text in own.items():  # the same fields to fill in
            fields = sorted(re.findall(r"\{\w*\}", text))
            assert fields == sorted(re.findall(r"\{\w*\}", english[key])), (lang, key)


def test_a_language_falls_back_to_its_base_then_to_english() -> None:
    assert messages.catalog("zh_CN") == messages.catalog("zh-cn") == messages.catalog("zh")
    assert messages.catalog("xx") == messages.catalog("en")
    assert messages.message("zh", "open_in", label="Colab") == "在 Colab 中打开"
    assert sphinx_language("zh") == "zh_CN" and sphinx_language("ja") == "ja"
    assert sphinx_language("pt-BR") == "pt_BR" == sphinx_language("pt")
    # Each is a language docutils has its words for (d2l-pt's `pt` warned on every page).
    from docutils.languages import get_language

    for lang in ("zh", "pt", "ja", "de"):
        code = sphinx_language(lang).lower()
        assert get_language(code).__name__.endswith(code), lang
    names = [messages.language_name(lang) for lang in ("zh", "en", "pt", "ja", "xx-yy")]
    assert names == ["中文", "English", "português", "日本語", "xx-yy"]


def test_gpu_notes_written_in_english_are_shown_in_the_books_language() -> None:
    from polybook.execution.kernels.badges import badge_text

    assert messages.localized_note("zh", badge_text(2, 1)) == "需要 2 个 GPU；构建主机只有 1 个"
    assert messages.localized_note("en", badge_text(1, 0)) == badge_text(1, 0)
    made = "output of a build on a host with 8 GPUs (2.5.0, 2026-01-02)"
    assert (
        messages.localized_note("zh", made)
        == "输出来自一台有 8 个 GPU 的主机上的构建（2.5.0, 2026-01-02）"
    )
    assert messages.localized_note("zh", "other text") == "other text"


def test_the_compare_scripts_english_is_the_catalogs() -> None:
    names = ("polybook-compare-controls.js", "polybook-compare.js")
    script = "".join((STATIC / name).read_text(encoding="utf-8") for name in names)
    block = script.split("const ENGLISH = {", 1)[1].split("};", 1)[0]
    found = dict(re.findall(r"(\w+): '([^']*)'", block))
    english = messages.catalog("en")
    assert found and all(english[k] == v for k, v in found.items())
    used = set(re.findall(r"say\('(\w+)'", script))
    assert used == set(found)


@pytest.fixture(scope="module")
def chinese_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = pages_book(tmp_path_factory.mktemp("zh") / "book", PAGES, CONFIG, "动手学深度学习")
    (root / "img.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"></svg>', encoding="utf-8"
    )
    assert build(root) == 0
    return root / "_build" / "html"


def _search(html: Path, query: str) -> list[str]:
    """The titles of the search page's results for ``query``, from ``file://``."""
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):
        page.goto(file_url(html / "search.html", {"q": query}))
        page.wait_for_function(  # the summary is written once the results are
            "(document.querySelector('p.search-summary') || {}).textContent"
        )
        found = page.locator("#search-results li > a").all_inner_texts()
        assert errors == [] and calls == []
    return found


@pytest.mark.slow
def test_a_chinese_book_is_searched_for_chinese_words(chinese_site: Path) -> None:
    index = (chinese_site / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(index.removeprefix("Search.setIndex(").removesuffix(")"))["terms"]
    assert {"线性", "回归", "梯度", "卷积", "神经网络"} <= set(terms)
    # The front page lists the pages' titles: it is found too, after the page itself.
    assert _search(chinese_site, "线性回归")[0] == "线性回归"  # cut into 线性 and 回归
    assert _search(chinese_site, "卷积")[0] == "卷积"
    assert _search(chinese_site, "梯度下降的模型") == ["线性回归"]  # 的 is no word of its own
    assert _search(chinese_site, "图像 梯度") == []  # no page has both


@pytest.mark.slow
def test_a_chinese_books_pages_carry_polybooks_strings_in_chinese(chinese_site: Path) -> None:
    page = chinese_site / "线性回归.html"
    text = page.read_text(encoding="utf-8")
    assert '<html class="no-js" lang="zh-CN"' in text
    assert ">下载 PyTorch 笔记本</a>" in text and 'aria-label="本页的笔记本"' in text
    assert "需要 2 个 GPU；构建主机只有" in text
    for english in ("Download the", "needs 2 GPU", "This page as a notebook"):
        assert english not in text
    assert "图1" in (chinese_site / "卷积.html").read_text(encoding="utf-8")
    calls: list[str] = []
    with offline_page(calls) as (_, browser_page, errors):
        browser_page.goto(file_url(page))
        assert browser_page.evaluate("window.pbMessages.compare") == "对比"
        tooltip = browser_page.locator("button.copybtn").first.get_attribute("data-tooltip")
        assert tooltip == "复制"
        assert errors == [] and calls == []


@pytest.mark.slow
def test_the_compare_view_speaks_the_catalogs_language(chromium: object) -> None:
    from playwright.sync_api import Browser

    assert isinstance(chromium, Browser)
    zh = messages.script("zh")
    with new_context(chromium) as context:
        context.add_init_script(zh)
        page = context.new_page()
        errors = watch_errors(page)
        fixture = Path(__file__).resolve().parents[1] / "site_fixture" / "compare.html"
        page.goto(file_url(fixture, {"compare": "pytorch,JAX"}))
        assert page.locator(".pb-compare").first.inner_text().strip().endswith("对比")
        assert page.get_attribute(".pb-compare-page", "aria-label") == "对比框架"
        note = page.locator("#set-b .pb-compare-note").inner_text()
        assert note == "此处没有 JAX 版本"
        assert errors == []
