"""Sphinx's read-only lookups (``:numref:``, figure numbers) take kept doctrees, unpickled
again only once Sphinx has read the page again; everything else gets its own copy."""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes

from polybook.render.sphinx import doctrees
from polybook.render.sphinx.doctrees import DOCTREES
from tests.sphinx_apps import rst_app

INDEX = "Book\n====\n\n.. toctree::\n   :numbered:\n\n   a\n   b\n"
A = "A\n=\n\nSee :numref:`fig-b` and :numref:`{name} <fig-b>`.\n"
B = "B\n=\n\n.. _fig-b:\n\n.. figure:: pic.png\n\n   {caption}\n"


def _project(root: Path, caption: str) -> Path:
    root.mkdir(exist_ok=True)
    (root / "index.rst").write_text(INDEX)
    (root / "a.rst").write_text(A)
    (root / "b.rst").write_text(B.format(caption=caption))
    (root / "pic.png").write_bytes(b"")
    return root


def _caption(tree: nodes.document) -> str:
    return str(next(iter(tree.findall(nodes.caption))).astext())


def test_a_lookup_reads_the_kept_doctree_until_the_page_is_read_again(tmp_path: Path) -> None:
    src = _project(tmp_path / "src", "Blocks")
    app = rst_app(src, tmp_path)
    doctrees.setup(app)
    app.build()
    env = app.env
    assert "get_doctree" not in vars(env)  # nothing of ours is left to pickle
    page = (tmp_path / "out" / "a.html").read_text()
    assert "Fig. 2.1" in page and "Blocks" in page
    kept = DOCTREES.get(env, "b")
    assert DOCTREES.get(env, "b") is kept and _caption(kept) == "Blocks"
    assert env.get_doctree("b") is not kept  # Sphinx's own readers: a copy each
    for caption in ("Layers", "Blocks again"):  # an edit, then another, in one process
        before = DOCTREES.unpickled
        (src / "b.rst").write_text(B.format(caption=caption))
        later = (src / "b.rst").stat().st_mtime_ns + 2_000_000_000  # a save seconds later
        os.utime(src / "b.rst", ns=(later, later))
        app.build()
        assert caption in (tmp_path / "out" / "b.html").read_text()
        assert _caption(env.get_doctree("b")) == caption  # not the bytes of the first read
        again = DOCTREES.get(env, "b")
        assert again is not kept and _caption(again) == caption
        kept = again
    # The last build unpickled the page read again (written, then looked up) alone: the
    # others were kept since the build before (which unpickled those it had written).
    assert DOCTREES.unpickled - before <= 2
    assert DOCTREES.get(env, "a") is DOCTREES.get(env, "a")
