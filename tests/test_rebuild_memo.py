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
from polybook.memo import Memo, digest
from polybook.render.sphinx.highlight import HIGHLIGHT_BLOCK, HIGHLIGHTED, _keep_highlighted
from polybook.site.stage import CLEANED, PLAIN
from tests.books import build, code, pages_book


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
    root = pages_book(tmp_path / "book", {"figure": body, "other": "Words.\n"})
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
            assert CLEANED.hits > hits[0] and PLAIN.hits > hits[1]
        hits = (CLEANED.hits, PLAIN.hits)
        cells = json.loads(downloaded.read_text())["cells"]
        attached = [c["attachments"] for c in cells if c.get("attachments")]
        assert [
            base64.b64decode(a["img-blocks.svg"]["image/svg+xml"]).decode() for a in attached
        ] == [svg]
