"""The site stage with the real Sphinx: kept (stale) pages, pruning, when Sphinx runs and how,
and a Sphinx that crashes.

One book goes through a history of builds, once for the module; each build records what it
really did: whether Sphinx ran (it writes its log anew), which pages it read (their doctrees
are written anew), the site's sources and HTML, and what was reported. Pages are made by hand.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from polybook.config import BookConfig, load_config
from polybook.diagnostics import Location, Reporter
from polybook.render.myst import Lines
from polybook.render.names import OUTPUT_DIR
from polybook.render.page import Page
from polybook.render.sources import page_files
from polybook.render.sphinx.config import RENDER_CODE, core_config, tool_digest
from polybook.site import settings as site_settings
from polybook.site.output import site_sections
from polybook.site.stage import plan_run, write_site

CONFIG = "[project]\nname = t\n[build]\ntabs = pytorch\neval_notebook = false\nresources = notes\n"


def make_page(docname: str, text: str, image: bytes = b"") -> Page:
    """A page with a title, and, given ``image``, one cell showing it."""
    page = Page(docname, Lines([f"# {text}"], [1]))
    if image:
        name = f"{OUTPUT_DIR}/{image.decode()}.png"
        page.files[name] = image
        out = {"type": "image", "uri": "/" + name}
        page.cells["g1"] = {"kind": "single", "cells": [{"source": "x", "outputs": [out]}]}
        page.lines.add("```{pb-cells} g1 0\n```", 2)
    return page


def index(*docnames: str) -> Page:
    return Page("index", Lines(["# Index", "```{toctree}", *docnames, "```"], [1, 2, 3, 4, 5]))


def crashing(docname: str) -> Page:
    """A page whose cell group is missing from its cell data: the extension raises."""
    return Page(docname, Lines(["# Bad", "```{pb-cells} nokey 0", "```"], [1, 2, 3]))


@dataclass
class Step:
    """What one build did, as seen from outside Sphinx."""

    ran: bool
    read: set[str]  # pages whose doctree Sphinx wrote in this build
    reporter: Reporter
    src: dict[str, bytes]  # the site's sources (``_static`` left out)
    html: dict[str, str]


def _files(folder: Path, pattern: str) -> dict[str, Path]:
    return {
        p.relative_to(folder).as_posix(): p
        for p in folder.rglob(pattern)
        if p.is_file() and "_static" not in p.relative_to(folder).parts
    }


def _doctrees(config: BookConfig) -> dict[str, int]:
    found = _files(config.build_dir / "doctrees", "*.doctree")
    return {name.removesuffix(".doctree"): p.stat().st_mtime_ns for name, p in found.items()}


def build(config: BookConfig, pages: Sequence[Page], stale: Collection[str] = ()) -> Step:
    log = config.build_dir / "sphinx-html.log"
    log.unlink(missing_ok=True)
    before = _doctrees(config)
    reporter = Reporter()
    write_site(site_sections(config), pages, reporter, frozenset(stale))
    read = {name for name, mtime in _doctrees(config).items() if before.get(name) != mtime}
    src = {k: p.read_bytes() for k, p in _files(config.build_dir / "site_src", "*").items()}
    html = {
        k: p.read_text(encoding="utf-8")
        for k, p in _files(config.build_dir / "html", "*.html").items()
    }
    return Step(log.is_file(), read, reporter, src, html)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Step]:
    root = tmp_path_factory.mktemp("sources")
    (root / "config.ini").write_text(CONFIG)
    (root / "notes").mkdir()
    (root / "notes" / "README.md").write_text("# Notes\n")  # a resource, not a page
    config = load_config(root)
    steps: dict[str, Step] = {}
    one = [
        index("chap/a", "chap/b"),
        make_page("chap/a", "A one", b"aaa"),
        make_page("chap/b", "B one", b"bbb"),
    ]
    steps["first"] = build(config, one)
    steps["again"] = build(config, one)
    two = [
        index("chap/a", "chap/b", "c"),
        make_page("chap/a", "A two"),
        make_page("chap/b", "B two"),
        make_page("c", "C"),
    ]
    steps["stale"] = build(config, two, stale={"chap/a", "c"})
    steps["recovered"] = build(config, two)
    with pytest.MonkeyPatch.context() as patch:  # as if the extension's code had changed
        patch.setattr(site_settings, "site_digest", lambda: "another extension")
        steps["new tool"] = build(config, two)
    three = [index("chap/a"), make_page("chap/a", "A two")]
    steps["pruned"] = build(config, three)
    steps["crash"] = build(config, [*three, crashing("bad")])
    steps["crash again"] = build(config, [*three, crashing("bad")])
    steps["fixed"] = build(config, [*three, make_page("bad", "Bad no more")])
    return steps


@pytest.mark.slow
def test_sphinx_runs_only_when_an_input_changed_and_afresh_when_the_tool_did(
    history: dict[str, Step],
) -> None:
    everything = {"index", "chap/a", "chap/b", "notes/README"}  # a resource's .md is a page
    assert history["first"].ran and history["first"].read == everything
    assert not history["again"].ran  # nothing changed: Sphinx does not start
    assert history["recovered"].read == {"chap/a"}  # Sphinx rereads what changed, by itself
    # Nothing in the book changed, but the extension did: every page is read again.
    new_tool = history["new tool"]
    assert new_tool.ran and new_tool.read == {*everything, "c"}


@pytest.mark.slow
def test_a_stale_page_keeps_its_last_good_sources_html_and_outputs(
    history: dict[str, Step],
) -> None:
    first, stale = history["first"], history["stale"]
    assert stale.ran and "chap/a" not in stale.read  # kept, as it was
    for path in page_files(Path(), "chap/a"):
        assert stale.src[path.as_posix()] == first.src[path.as_posix()]
    assert "A one" in stale.html["chap/a.html"]  # its last good HTML
    assert f"{OUTPUT_DIR}/aaa.png" in stale.src  # with its image
    assert f"{OUTPUT_DIR}/bbb.png" not in stale.src  # b no longer uses it
    assert "B two" in stale.html["chap/b.html"]
    assert "C" in stale.html["c.html"]  # nothing to keep: written
    diags = [d for d in stale.reporter.diagnostics if d.subtype == "render.stale"]
    assert [(d.location, d.message) for d in diags] == [
        (Location("chap/a.md"), "page kept from the last good build: its inputs failed")
    ]
    # Once its inputs are good again, the page is written anew and its old image goes.
    recovered = history["recovered"]
    assert "A two" in recovered.html["chap/a.html"]
    assert f"{OUTPUT_DIR}/aaa.png" not in recovered.src


@pytest.mark.slow
def test_pages_no_longer_in_the_book_are_removed_but_resources_stay(
    history: dict[str, Step],
) -> None:
    pruned = history["pruned"]
    assert "chap/b.md" in history["new tool"].src
    assert not any(p.as_posix() in pruned.src for p in page_files(Path(), "chap/b"))
    assert "notes/README.md" in pruned.src


@pytest.mark.slow
def test_an_exception_on_a_page_is_one_error_at_its_line(history: dict[str, Step]) -> None:
    [error] = history["crash"].reporter.errors
    assert error.location == Location("bad.md", 2) and error.subtype == "sphinx.exception"
    assert error.message == "Sphinx failed on this page: KeyError: 'nokey'"
    # The next build runs Sphinx again though nothing changed (and crashes again).
    again = history["crash again"]
    assert again.ran and [e.message for e in again.reporter.errors] == [error.message]
    # Once the page is fixed, Sphinx reads every page again, changed or not.
    fixed = history["fixed"]
    assert fixed.reporter.errors == [] and {"index", "chap/a", "bad"} <= fixed.read
    assert "Bad no more" in fixed.html["bad.html"]


def test_the_decision_to_run_sphinx() -> None:
    settings = {"config": {"project": "t"}, "tool": "1"}
    assert plan_run(None, settings, False) == (True, True)
    assert plan_run(json.loads(json.dumps(settings)), settings, False) == (False, False)
    assert plan_run(settings, settings, True) == (True, False)
    assert plan_run({**settings, "tool": "0"}, settings, False) == (True, True)
    assert plan_run({**settings, "config": {"project": "u"}}, settings, False) == (True, False)


def test_the_tool_digest_covers_the_extensions_code_and_static_files(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(site_settings.SITE_CODE, site, ignore=shutil.ignore_patterns("__pycache__"))
    before = tool_digest(site)
    assert tool_digest(site) == before
    ext = site / "sphinx_html.py"
    ext.write_text(ext.read_text() + "\n# changed\n")
    changed = tool_digest(site)
    assert changed != before
    css = next((site / "static").glob("*.css"))
    css.write_text(css.read_text() + "\n/* changed */\n")
    last = tool_digest(site)
    assert last != changed
    (site / "notes.txt").write_text("neither code nor a static file")
    assert tool_digest(site) == last


def test_the_tool_digest_covers_the_render_cores_adapter_to_sphinx(tmp_path: Path) -> None:
    assert (RENDER_CODE / "sphinx" / "core_ext.py").is_file()  # the core and its adapter
    render = tmp_path / "render"
    shutil.copytree(RENDER_CODE, render, ignore=shutil.ignore_patterns("__pycache__"))
    before = tool_digest(render)
    ext = render / "sphinx" / "core_ext.py"
    ext.write_text(ext.read_text() + "\n# changed\n")
    assert tool_digest(render) != before


@pytest.fixture
def config(tmp_path: Path) -> BookConfig:
    (tmp_path / "config.ini").write_text(CONFIG)
    return load_config(tmp_path)


def test_render_suppressions_reach_sphinx_as_its_own_types(config: BookConfig) -> None:
    book = replace(
        config,
        build=replace(
            config.build, suppress_warnings=("render.ref.numref", "render.image", "cite")
        ),
    )
    suppressed = core_config(book.book, book.build)["suppress_warnings"]
    assert suppressed == ["myst.header", "toc.not_included", "ref.numref", "image"]
    plain = core_config(config.book, config.build)["suppress_warnings"]
    assert plain == ["myst.header", "toc.not_included"]


def test_static_sub_folders_do_not_break_the_settings(config: BookConfig) -> None:
    deep = config.root / "static" / "fonts" / "sub"
    deep.mkdir(parents=True)
    (deep / "f.woff2").write_bytes(b"font")
    (config.root / "static" / "book.css").write_text("p {}")
    first = site_settings.site_settings(site_sections(config))
    assert first["config"]["html_css_files"] == ["book.css"]
    (deep / "f.woff2").write_bytes(b"another font")
    assert site_settings.site_settings(site_sections(config))["assets"] != first["assets"]


def test_mathjax_is_copied_again_only_where_the_copy_or_its_source_changed(
    tmp_path: Path,
) -> None:
    from polybook.render.assets import mathjax, write_mathjax

    if not (mathjax() / "tex-chtml.js").is_file():
        pytest.fail("MathJax is not installed: `make envs` installs it")
    static = tmp_path / "_static"
    write_mathjax(static)
    copy = static / "mathjax" / "tex-chtml.js"
    assert copy.read_bytes() == (mathjax() / "tex-chtml.js").read_bytes()
    assert write_mathjax(static) is False  # as it was
    copy.write_text("// changed by hand\n", encoding="utf-8")
    assert write_mathjax(static) is True  # the copy changed: written again
    assert copy.read_bytes() == (mathjax() / "tex-chtml.js").read_bytes()
