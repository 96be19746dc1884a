"""End to end: the fixture book built in the four frameworks' real kernels, then read back."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from polybook.commands.cli import main

from ..books import LIB_FILES, Built, tree_digest
from ..books import copy_fixture as copy_book

pytestmark = pytest.mark.slow

TABS = ["pytorch", "mxnet", "jax", "tensorflow"]


def test_sphinx_warnings_point_at_the_authors_line(built: Built) -> None:
    located = [m for m in built.warnings if "sec_missing" in m]
    assert len(located) == 1
    assert located[0].startswith("chap/more.md:4: ")
    assert located[0].endswith("[polybook.render.ref.numref]")


def page(root: Path, name: str) -> BeautifulSoup:
    return BeautifulSoup((root / "_build/html" / name).read_text(encoding="utf-8"), "html.parser")


def tabsets(soup: BeautifulSoup) -> list[Tag]:
    return [t for t in soup.select("div.pb-tabset") if isinstance(t, Tag)]


def panel_text(tabset: Tag, tab: str) -> str:
    panel = tabset.select_one(f'div.pb-panel[data-pb-tab="{tab}"]')
    assert panel is not None, f"no {tab} panel"
    return panel.get_text()


def test_build_succeeds_and_leaves_sources_untouched(
    built: Built,
) -> None:
    root, before, code = built.root, built.before, built.code
    assert code == 0
    assert tree_digest(root) == before
    for lib in LIB_FILES:
        assert "def double(x):" in (root / lib).read_text()


def test_code_tab_sets_are_keyed_by_framework_with_real_outputs(
    built: Built,
) -> None:
    soup = page(built.root, "chap/tensors.html")
    code_sets = [t for t in tabsets(soup) if t["data-pb-kind"] == "code"]
    names = [[b["data-pb-tab"] for b in t.select("button.pb-tab")] for t in code_sets]
    assert names == [TABS, TABS, TABS]
    sums = code_sets[1]
    for tab in TABS:
        assert "3" in panel_text(sums, tab).split()
    assert "torch.arange(3)" in panel_text(sums, "pytorch")
    assert "jnp.arange(3)" in panel_text(sums, "jax")
    selected = code_sets[2]
    assert "imperative 4" in panel_text(selected, "mxnet")
    assert "functional 4" in panel_text(selected, "tensorflow")
    assert "tab.selected" not in selected.get_text()
    hidden = [p.has_attr("hidden") for p in sums.select("div.pb-panel")]
    assert hidden == [False, True, True, True]


def test_shared_cells_show_once_and_prose_tabs_are_grouped(
    built: Built,
) -> None:
    soup = page(built.root, "chap/tensors.html")
    shared = [c.get_text() for c in soup.select("div.pb-cell")]
    assert any("print(double(21))" in c and "42" in c for c in shared)
    prose = [t for t in tabsets(soup) if t["data-pb-kind"] == "prose"]
    assert len(prose) == 1
    assert [b["data-pb-tab"] for b in prose[0].select("button.pb-tab")] == ["pytorch", "mxnet"]
    assert "MXNet calls them ndarrays." in panel_text(prose[0], "mxnet")


def test_its_site_has_no_dead_link_though_its_code_writes_tags(built: Built) -> None:
    assert built.code == 0
    assert [w for w in built.warnings if "[polybook.site.link]" in w] == []
    assert '&lt;img src="x.png"' in (built.root / "_build/html/chap/more.html").read_text()


def test_gpu_cells_show_a_badge_and_references_resolve(
    built: Built,
) -> None:
    soup = page(built.root, "chap/tensors.html")
    badges = soup.select("div.pb-badge")
    shown = [b.select_one("span:not(.pb-sr-only)").get_text(strip=True) for b in badges]  # type: ignore[union-attr]
    assert shown == ["needs 2 GPUs; built on a host with 0"]
    assert [(b["role"], b.select_one(".pb-sr-only").get_text()) for b in badges] == [  # type: ignore[union-attr]
        ("note", "Note: ")
    ]
    text = soup.get_text()
    assert "Fig. 1.1.1" in text and "Section 1" in text and "(1.1.1)" in text
    assert soup.select_one('meta[name="pb-tabs"]')["content"] == ",".join(TABS)  # type: ignore[index]
    scripts = [s.get("src", "") for s in soup.select("script")]
    assert all(not str(s).startswith(("http:", "https:", "//")) for s in scripts)
    assert any("polybook-tabs.js" in str(s) for s in scripts)
    figure = soup.select_one("figure#fig-box img")
    assert figure is not None and (built.root / "_build/html/chap" / str(figure["src"])).is_file()


def test_second_build_does_nothing_and_outputs_are_restored(
    built: Built, caplog: pytest.LogCaptureFixture
) -> None:
    root = built.root
    html = root / "_build/html/chap/tensors.html"
    before = html.stat().st_mtime_ns
    with caplog.at_level(logging.INFO, logger="polybook"):
        assert main(["--root", str(root), "build", "html"]) == 0
    assert "nothing changed since the last build" in caplog.text
    assert html.stat().st_mtime_ns == before
    # Outputs removed or a library edited by hand: rebuilt, from the execution cache.
    caplog.clear()
    lib = root / "d2l" / "torch.py"
    good = lib.read_text()
    lib.write_text(good + "\nbroken = True\n")
    shutil.rmtree(root / "_build" / "html")
    with caplog.at_level(logging.INFO, logger="polybook"):
        assert main(["--root", str(root), "build", "html"]) == 0
    assert "executed 0 notebooks, 8 from the cache, 0 failed" in caplog.text
    assert lib.read_text() == good
    assert html.is_file()


def test_failing_cell_is_located_and_other_notebooks_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_book(tmp_path / "book")
    page_md = root / "chap" / "tensors.md"
    page_md.write_text(
        page_md.read_text().replace(
            "%%tab mxnet\nint(np.arange(3).sum())",
            "%%tab mxnet\nint(np.arange(3).sum())\nundefined_name",
        )
    )
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 1
    err = capsys.readouterr().err
    assert (
        "chap/tensors.md:65 [mxnet] cell 4: NameError: name 'undefined_name' is not defined" in err
    )
    assert (root / "_build/eval/pytorch/chap/tensors.ipynb").is_file()
    assert (root / "_build/eval/jax/chap/tensors.ipynb").is_file()


def test_outputs_from_a_bigger_host_are_shown_without_notes_on_empty_cells(tmp_path: Path) -> None:
    """A build on a (simulated) 2-GPU host fills the cache; this host then shows its outputs,
    with no provenance note on a cell that has none."""
    from polybook.config import load_config
    from polybook.diagnostics import Reporter
    from polybook.execution.jobs import Inventory
    from polybook.execution.stage import build_eval
    from polybook.library.extract import extract_libraries
    from polybook.library.stage import write_libraries
    from polybook.pipeline.execution import BookEnvironments, execution
    from polybook.source.book import load_book
    from polybook.source.split import split_book

    root = copy_book(tmp_path / "book")
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    notebooks = split_book(book, ("pytorch",), reporter)
    found = extract_libraries(notebooks, reporter)
    libraries = write_libraries(config.book, config.library, found, reporter)
    envs, gpus = BookEnvironments(config), Inventory(gpus=2)
    report = build_eval(execution(config), envs, notebooks, libraries, reporter, inventory=gpus)
    assert not reporter.errors and len(report.ran) == 2
    assert main(["--quiet", "--root", str(root), "build", "html", "--tab", "pytorch"]) == 0
    soup = page(root, "chap/tensors.html")
    assert soup.select("div.pb-badge") == []
    # The 2-GPU cell ran there (no badge) and printed nothing: no note vouches for it (a
    # cell with outputs carries one: test_gpu_hosts, test_compat_line_browser).
    assert soup.select("div.pb-provenance") == []


def test_the_built_site_switches_tabs_in_a_real_browser_offline(
    built: Built,
) -> None:
    """Headless Chromium on the generated pages: sync by name, memory across pages, no network."""
    from ..browser import file_url, offline_page

    html = built.root / "_build" / "html" / "chap"
    selected = """() => Array.from(document.querySelectorAll('.pb-tabset'))
        .filter((set) => !set.hidden)
        .map((set) => set.querySelector('.pb-tab[aria-selected="true"]').dataset.pbTab)"""
    remote: list[str] = []
    with offline_page(remote) as (_, page, errors):
        page.goto(file_url(html / "tensors.html", {"tab": "mxnet"}))
        assert set(page.evaluate(selected)) == {"mxnet"}
        page.click('.pb-tabset[data-pb-kind="code"] .pb-tab[data-pb-tab="jax"]')
        shown = page.evaluate(selected)
        assert shown and set(shown) == {"jax"}  # the pytorch/mxnet prose set is hidden
        # Math is drawn at build time: an SVG with its TeX as its label, no MathJax loaded.
        page.wait_for_selector("span.pb-math[role=img] svg", state="attached", timeout=20000)
        assert page.evaluate("typeof window.MathJax") == "undefined"
        page.goto(file_url(html / "more.html"))
        assert set(page.evaluate(selected)) == {"jax"}
        assert errors == []
        assert remote == []
