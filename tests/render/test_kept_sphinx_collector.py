"""The Sphinx process ``polybook serve`` keeps collects its young objects while it waits:
an edit's build starts with the collector's young generations empty, so it meets no
collection of the objects the last build left (a pause of 10–20 ms, every other edit of
d2l-en's)."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest

from benchmarks.make_book import write_book
from polybook.commands.cli import main
from polybook.render.sphinx.process import WarmSphinx
from polybook.render.sphinx.run import LATE_DELAY
from polybook.site.settings import site_digest

pytestmark = pytest.mark.slow

# Loaded by the kept process (on its PYTHONPATH): each build's collector counts at its start.
RECORDER = textwrap.dedent(
    """
    import gc, json, os
    from sphinx import application

    def _recording(build):
        def recorded(self, *args, **kwargs):
            with open(os.environ["PB_TEST_COUNTS"], "a", encoding="utf-8") as out:
                out.write(json.dumps(gc.get_count()) + "\\n")
            return build(self, *args, **kwargs)
        return recorded

    application.Sphinx.build = _recording(application.Sphinx.build)
    """
)


def test_an_edits_build_starts_with_the_young_generations_collected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "book"
    write_book(root, 6)
    assert main(["--quiet", "--root", str(root), "build", "html"]) == 0
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(RECORDER, encoding="utf-8")
    counts = tmp_path / "counts.jsonl"
    monkeypatch.setenv("PYTHONPATH", str(hook))
    monkeypatch.setenv("PB_TEST_COUNTS", str(counts))
    build = root / "_build"
    source = build / "site_src" / "chapter_preliminaries" / "section-01.md"
    sphinx = WarmSphinx.start(build / "sphinx-html.json", site_digest())
    assert sphinx is not None
    try:
        for word in ("Warmed ", "Edited ", "Again "):
            text = source.read_text(encoding="utf-8")
            source.write_text(text.replace("The ", word, 1), encoding="utf-8")
            assert sphinx.run() == ""
            sphinx.write_late()  # the page is out: it writes the rest, then waits idle
            time.sleep(LATE_DELAY + 1.5)
    finally:
        sphinx.stop()
    starts = [json.loads(line) for line in counts.read_text(encoding="utf-8").splitlines()]
    assert len(starts) == 3, starts
    for young, middle, _old in starts[1:]:  # the first build followed the warming alone
        assert young < 1_000 and middle == 0, starts
