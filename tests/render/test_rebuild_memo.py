"""A process that builds again (``polybook serve``) takes each unchanged page's steps from
what it made before, by content: it shows what a cold build would, warnings included."""

from __future__ import annotations

import base64
import json
import logging
import time
from pathlib import Path

import pytest
from sphinx.highlighting import PygmentsBridge

from polybook.diagnostics import Location, Reporter
from polybook.execution.plan import ADOPTED
from polybook.memo import Memo, digest
from polybook.render.kept import CLEANED, CLEANED_HELD, PLAIN
from polybook.render.sphinx.highlight import HIGHLIGHT_BLOCK, HIGHLIGHTED, _keep_highlighted
from tests.books import build, code, pages_book, shipped_with_cache


def test_a_kept_result_comes_with_what_its_step_reported() -> None:
    memo: Memo[int] = Memo(2)
    calls: list[str] = []

    def step(name: str, value: int):  # type: ignore[no-untyped-def]
        def compute(found: Reporter) -> int:
            calls.append(name)
            found.warn(Location(f"{name}.md", 3), f"{name} is odd", "render.odd")
            return value

        return compute

    for _ in range(2):
        reporter = Reporter(quiet=True)
        assert memo.get(digest("a", 1), step("a", 1), reporter) == 1
        assert [str(d.location) for d in reporter.warnings] == ["a.md:3"]
    assert calls == ["a"] and (memo.hits, memo.misses) == (1, 1)
    quiet = Reporter(quiet=True, suppressed=frozenset({"render"}))
    assert memo.get(digest("a", 1), step("a", 1), quiet) == 1 and quiet.warnings == []
    memo.get(digest("b"), step("b", 2), Reporter(quiet=True))
    memo.get(digest("c"), step("c", 3), Reporter(quiet=True))  # "a" is the oldest: dropped
    assert memo.get(digest("a", 1), step("a", 1), Reporter(quiet=True)) == 1
    assert calls == ["a", "b", "c", "a"]
    stale = memo.get(digest("c"), step("c", 4), Reporter(quiet=True), fresh=lambda kept: kept > 3)
    assert stale == 4 and calls[-1] == "c"


def test_digests_tell_content_apart() -> None:
    assert digest({"a": 1, "b": [1, 2]}) == digest({"b": [1, 2], "a": 1})
    assert digest("x", 1) != digest("x", "1") != digest(["x", 1])


def test_kept_highlighting_is_sphinxs_own() -> None:
    _keep_highlighted()
    bridge = PygmentsBridge("html")
    source = "def f(x):\n    return x  # one\n"
    first = bridge.highlight_block(source, "python")
    assert bridge.highlight_block(source, "python") is first  # kept, not made again
    assert first == HIGHLIGHT_BLOCK(bridge, source, "python")
    marked = bridge.highlight_block(source, "python", hl_lines=[2])
    assert marked == HIGHLIGHT_BLOCK(bridge, source, "python", hl_lines=[2]) != first
    assert '<span class="hll">' in marked
    latex = PygmentsBridge("latex").highlight_block(source, "python")
    assert latex.startswith("\\begin{Verbatim}") and latex != first
    assert len({id(f) for f in HIGHLIGHTED.formatters.values()}) == len(HIGHLIGHTED.formatters)


SCRIPTED = code("from IPython.display import Javascript", "Javascript('void 0')")


@pytest.mark.slow
def test_a_rebuild_in_one_process_warns_again_and_attaches_the_changed_figure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    body = f"A figure:\n\n![Blocks](img/blocks.svg)\n\n{SCRIPTED}"
    pages = {"figure": body, "other": "Words.\n", "kept": code("1 + 1")}  # kept: a memo hit
    root = pages_book(tmp_path / "book", pages)
    figure = root / "img" / "blocks.svg"
    figure.parent.mkdir()
    downloaded = root / "_build/html/_notebooks/pytorch/figure.ipynb"
    hits = (0, 0)
    for width in (10, 10, 200):  # another page edited each time; the last, a new figure
        svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="10"/>'
        figure.write_text(svg)
        (root / "other.md").write_text(f"# other\n\n{time.monotonic_ns()} words.\n")
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="polybook"):
            assert build(root) == 0
        assert "figure.md:8 [pytorch]: a JavaScript output is not shown" in caplog.text
        if width == 200:  # the figure's page as the second build cleaned it and made it plain
            # (by the very notebook: its executed notebook is the last build's)
            assert CLEANED.hits + CLEANED_HELD.hits > hits[0] and PLAIN.hits > hits[1]
        hits = (CLEANED.hits + CLEANED_HELD.hits, PLAIN.hits)
        cells = json.loads(downloaded.read_text())["cells"]
        attached = [c["attachments"] for c in cells if c.get("attachments")]
        assert [
            base64.b64decode(a["img-blocks.svg"]["image/svg+xml"]).decode() for a in attached
        ] == [svg]


def _parsed(root: Path):  # type: ignore[no-untyped-def]
    from polybook.config import load_config
    from polybook.source.book import load_book

    config = load_config(root)
    return load_book(config.book, config.build, Reporter(quiet=True))


def test_a_pages_notebooks_are_split_once_per_parse_and_kept_as_the_same_notebook(
    tmp_path: Path,
) -> None:
    from polybook.source.split import SPLIT, split_book

    root = pages_book(tmp_path / "book", {"a": code("x = 1"), "b": code("y = 2")})
    book = _parsed(root)
    first = split_book(book, ("pytorch",), Reporter(quiet=True))["pytorch"]
    misses = SPLIT.misses
    again = split_book(_parsed(root), ("pytorch",), Reporter(quiet=True))["pytorch"]
    assert SPLIT.misses == misses  # the same parses: nothing split again
    assert all(a is b for (_, a), (_, b) in zip(again, first, strict=True))  # the very ones
    (root / "a.md").write_text("# a\n\n" + code("x = 3"))
    edited = split_book(_parsed(root), ("pytorch",), Reporter(quiet=True))["pytorch"]
    assert SPLIT.misses == misses + 1  # the edited page alone
    assert edited[1][1].cells[-1].source == "x = 3" and first[1][1].cells[-1].source == "x = 1"
    assert [p for p, nb in edited if nb is not dict(first)[p]] == ["a.md"]


def test_a_page_is_rendered_again_when_its_notebooks_or_its_shown_files_may_differ(
    tmp_path: Path,
) -> None:
    from polybook.nb import copy_notebook
    from polybook.render.kept import RENDERED, rendered
    from polybook.source.split import split_book

    root = pages_book(tmp_path / "book", {"a": code("x = 1")})
    (root / "shown.txt").write_text("one")
    book = _parsed(root)
    doc = next(d for d in book.documents if d.path == "a.md")
    nb = dict(split_book(book, ("pytorch",), Reporter(quiet=True))["pytorch"])["a.md"]
    page = rendered(doc, {"pytorch": nb}, ("pytorch",), Reporter(quiet=True), 0, root)
    assert rendered(doc, {"pytorch": nb}, ("pytorch",), Reporter(quiet=True), 0, root) is page
    misses = RENDERED.misses
    other = copy_notebook(nb)  # equal, but another notebook: rendered again
    assert rendered(doc, {"pytorch": other}, ("pytorch",), Reporter(quiet=True), 0, root) == page
    assert RENDERED.misses == misses + 1
    (root / "a.md").write_text("# a\n\n```eval_rst\n.. raw:: html\n   :file: shown.txt\n```\n")
    shows = next(d for d in _parsed(root).documents if d.path == "a.md")
    before = rendered(shows, {}, ("pytorch",), Reporter(quiet=True), 0, root)
    (root / "shown.txt").write_text("two")
    after = rendered(shows, {}, ("pytorch",), Reporter(quiet=True), 0, root)
    assert before.files == {"shown.txt": b"one"} and after.files == {"shown.txt": b"two"}


def test_a_pages_parse_is_kept_by_the_building_process_where_workers_parsed_it(
    tmp_path: Path,
) -> None:
    # Enough pages to be parsed by worker processes: the build's own process keeps each
    # parse, and hands the same one out to the next build (serve's), which reads none again.
    from polybook.config import load_config
    from polybook.source.book import load_book

    names = [f"p{n}" for n in range(40)]
    root = pages_book(tmp_path, {name: f"Words of {name}.\n" for name in names})
    config = load_config(root)
    first = load_book(config.book, config.build, Reporter(quiet=True))
    again = load_book(config.book, config.build, Reporter(quiet=True))
    assert len(first.documents) == 41
    assert all(a is b for a, b in zip(first.documents, again.documents, strict=True))


def _kept_notebooks() -> dict[int, tuple[object, str]]:
    """Every notebook the memos keep by identity (the split and rewritten notebooks, those
    with their cached outputs, the cleaned ones), each with its content as it is now."""
    from polybook.library.rewrite import _NOTEBOOKS
    from polybook.render.kept import CLEANED_HELD
    from polybook.source.split import SPLIT

    found: dict[int, tuple[object, str]] = {}
    for memo in (SPLIT, _NOTEBOOKS, ADOPTED, CLEANED_HELD):
        for (held, made), _ in memo.memo.kept.values():
            for nb in (*held, made):
                if isinstance(nb, dict):  # not the page's parse
                    found[id(nb)] = (nb, json.dumps(nb, sort_keys=True))
    return found


@pytest.mark.slow
def test_no_stage_changes_a_notebook_the_next_build_is_given_again(tmp_path: Path) -> None:
    """The notebooks of unchanged pages are handed to the next build as they are (the same
    objects): every stage of every output reads them and changes only its own copies."""
    root = shipped_with_cache(tmp_path / "book")
    assert build(root, "html", "--tab", "all") == 0
    before = _kept_notebooks()
    assert len(before) > 60  # the shipped book's: 9 pages, four tabs
    page = root / "chapter_builders-guide" / "parameters.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more sentence.\n")
    for target in ("html", "notebooks", "slides"):
        assert build(root, target, "--tab", "all") == 0, target
        if target == "html":
            adopted = ADOPTED.misses
    # Unchanged notebooks and runs: the later builds take each with its outputs as it was.
    assert ADOPTED.misses == adopted and ADOPTED.hits >= 60
    changed = [id_ for id_, (nb, text) in before.items() if json.dumps(nb, sort_keys=True) != text]
    assert changed == []
