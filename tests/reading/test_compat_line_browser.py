"""What the shipped book's site tells a reader of its compatibility, in Chromium: the "works
with" line is in the page as built (shown without JavaScript, nothing inserted after
load), names the version the outputs came from, reads unseeded random draws as such, keeps
its date on one line and passes axe in both themes; the GPU page's provenance notes hang
only on cells with outputs; the GPU page's figure and the chapter's prose say what the code
and its outputs say."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser

from polybook.paths import node_modules

from ..books import REPO, build, shipped_with_cache
from ..browser import file_url, new_context, watch_errors

pytestmark = pytest.mark.slow

AXE = node_modules() / "axe-core" / "axe.min.js"
PAGE = "chapter_builders-guide/init-param.html"
GPUS = "chapter_builders-guide/use-gpu.html"
AXE_LINE = """async () => {
  const result = await axe.run('.pb-compat-lines', {resultTypes: ['violations'], preload: false});
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '));
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = shipped_with_cache(tmp_path_factory.mktemp("shipped") / "book")
    for held in ("_compat", "_freeze"):  # its committed check and its GPU host's outputs
        shutil.copytree(REPO / held, root / held)
    assert build(root, "html", "--tab", "all") == 0
    return root / "_build" / "html"


def test_the_line_is_in_the_page_and_honest_without_javascript(
    site: Path, chromium: Browser
) -> None:
    context = chromium.new_context(
        java_script_enabled=False, viewport={"width": 390, "height": 844}
    )
    try:
        page = context.new_page()
        page.goto(file_url(site / PAGE))
        line = page.locator(".pb-compat-line:visible")
        assert line.count() == 1  # the first framework's, PyTorch
        text = line.inner_text()
        assert text.startswith("Outputs from torch 2.13.0+cpu")
        assert "Works with torch 2.14.1 (random draws differ)" in text
        assert "Outputs change" not in text and "checked 27 November 2026" in text
        details = line.locator("a.pb-compat-details").first.get_attribute("href")
        assert details == "../compat/reports/pytorch-newest.html#cell-5"  # its first cell
        day = page.locator(".pb-compat-line:visible .pb-compat-day")
        assert day.evaluate("e => e.getClientRects().length") == 1  # one line, not wrapped
    finally:
        context.close()


def test_the_line_follows_the_framework_and_passes_axe(site: Path, chromium: Browser) -> None:
    for theme in ("light", "dark"):
        with new_context(chromium) as context:
            context.add_init_script(f"localStorage.setItem('theme', '{theme}')")
            page = context.new_page()
            errors = watch_errors(page)
            page.goto(file_url(site / GPUS) + "?tab=jax")
            shown = page.locator(".pb-compat-line:visible")
            assert shown.count() == 1
            assert shown.get_attribute("data-pb-follow") == "jax"
            assert "Outputs differ with jax 0.10.2" in shown.inner_text()
            page.add_script_tag(path=str(AXE))
            assert cast(list[Any], page.evaluate(AXE_LINE)) == []
            opacity = shown.locator("a").first.evaluate("e => getComputedStyle(e).opacity")
            assert opacity == "1"
            assert errors == []


def test_provenance_only_on_cells_with_outputs(site: Path, chromium: Browser) -> None:
    with new_context(chromium) as context:
        page = context.new_page()
        page.goto(file_url(site / GPUS))
        notes = page.locator(".pb-provenance")
        assert notes.count() > 0
        lone = page.evaluate(
            "[...document.querySelectorAll('.pb-provenance')].filter((n) =>"
            " !(n.nextElementSibling && n.nextElementSibling.matches('.pb-output'))).length"
        )
        assert lone == 0
        # One line says which tabs' outputs came from which host; each tab's line names
        # the version its outputs came from.
        hosts = page.locator(".pb-hosts").inner_text()
        assert "PyTorch: output of a build on a host with 1 GPU (NVIDIA H200" in hosts
        assert "MXNet, TensorFlow: this site's build" in hosts
        line = page.locator(".pb-compat-line:visible").inner_text()
        assert line.startswith("Outputs from torch 2.11.0 on NVIDIA H200")


def test_the_gpu_page_says_what_its_code_and_outputs_say() -> None:
    figure = (REPO / "img" / "copy-between-devices.svg").read_text(encoding="utf-8")
    cpu = figure.split("GPU 0")[0]
    assert ">Z<" not in cpu and "Z (copy of X)" in figure.split("GPU 1")[1]
    prose = (REPO / "chapter_builders-guide" / "use-gpu.md").read_text(encoding="utf-8")
    assert "typically much slower" not in prose and "about 10%" in prose
    index = (REPO / "chapter_builders-guide" / "index.md").read_text(encoding="utf-8")
    assert "(**the ideas" not in index


def test_the_compatibility_page_reads_by_section_and_follows_the_switcher(
    site: Path, chromium: Browser
) -> None:
    with new_context(chromium, width=390, height=844) as context:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(file_url(site / "compatibility.html") + "?tab=tensorflow")
        shown = page.locator(".pb-compat-fw:visible")
        assert shown.count() == 1 and shown.get_attribute("data-pb-follow") == "tensorflow"
        text = page.locator("article").inner_text()
        assert "27 November 2026" in text and "T17:53" not in text
        assert ".md" not in shown.inner_text()
        link = shown.locator("a", has_text="Custom Layers")
        assert (
            link.get_attribute("href") == "chapter_builders-guide/custom-layer.html?tab=tensorflow"
        )
        assert shown.locator(".pb-compat-chapter", has_text="Builders' Guide").count() == 1
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390
        assert errors == []


def test_a_report_is_a_page_of_the_site_that_fits_a_phone(site: Path, chromium: Browser) -> None:
    with new_context(chromium, width=390, height=844) as context:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(file_url(site / "compat/reports/pytorch-newest.html"))
        assert page.locator(".pb-report").count() == 1  # inside the site's layout
        back = page.locator("article a", has_text="Compatibility").first
        assert back.get_attribute("href") == "../../compatibility.html"
        headings = page.locator(".pb-report h2").all_inner_texts()
        assert headings[0] == "Changed cells" and headings[-1] == "Packages"
        assert ".md" not in page.locator(".pb-report h3").first.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        hrefs = page.eval_on_selector_all(
            ".pb-report a[href]", "links => links.map((a) => a.getAttribute('href'))"
        )
        for href in hrefs:
            target = href.split("#")[0].split("?")[0]
            if target:
                assert (site / "compat/reports" / target).resolve().is_file(), href
        assert errors == []
