"""Figure numbers are walked from each page's structure, noted as it is read, not from the
doctrees (``render.sphinx.kept_numbers``): the same numbers as Sphinx's own walk, for
books drawn by a grammar of numbered toctrees, nested sections and numbered blocks."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sphinx.environment.collectors.toctree import TocTreeCollector

from polybook.render.sphinx import doctrees, kept_numbers
from tests.sphinx_apps import rst_app

UNDERLINES = "=-~^"  # a page's title, then its sections' levels

Block = tuple[str, int]  # (kind, a level or a flag)
block = st.one_of(
    st.tuples(st.just("section"), st.integers(1, 3)),
    st.tuples(st.sampled_from(["figure", "table", "code", "math"]), st.integers(0, 1)),
    st.tuples(st.just("toctree"), st.integers(0, 1)),
)
pages = st.lists(st.lists(block, max_size=8), min_size=1, max_size=5)


def _page(name: str, blocks: list[Block], below: list[str]) -> str:
    """A page of reStructuredText; its toctree blocks list (and take) the first of
    ``below``, pages after it that no toctree lists yet."""
    lines = [name, UNDERLINES[0] * len(name), ""]
    level = 0
    for count, (kind, flag) in enumerate(blocks, start=1):
        label = f"{name}-{kind}-{count}"
        if kind == "section":
            level = min(flag, level + 1)  # a title one level deeper at most
            title = f"Part {count}"
            lines += [title, UNDERLINES[level] * len(title), ""]
        elif kind == "figure":  # a figure with no caption has no number
            caption = ["", f"   Caption {count}"] if flag else []
            lines += [f".. _{label}:", "", ".. figure:: pic.png", *caption, ""]
        elif kind == "table":
            lines += [f".. table:: Table {count}", f"   :name: {label}", ""]
            lines += ["   = =", "   a b", "   = =", ""]
        elif kind == "code":
            caption = [f"   :caption: Code {count}"] if flag else []
            lines += [".. code-block:: python", *caption, f"   :name: {label}", "", "   x", ""]
        elif kind == "math":
            lines += [".. math::", f"   :label: {label}", "", "   x^2", ""]
        elif below:
            listed = below[:1] if flag else below[:]
            lines += [".. toctree::", "", *(f"   {ref}" for ref in listed), ""]
            del below[: len(listed)]
    return "\n".join(lines) + "\n"


def _book(root: Path, drawn: list[list[Block]], numbered: str) -> None:
    """An index whose numbered toctree lists the first pages; the others are below them,
    listed by the toctree blocks of the pages before (when any)."""
    names = [f"p{n}" for n in range(len(drawn))]
    top = names[: max(1, len(names) // 2)]
    index = ["Book", "====", "", ".. toctree::", f"   :numbered: {numbered}", ""]
    index += [f"   {n}" for n in top]
    (root / "index.rst").write_text("\n".join(index) + "\n")
    below = names[len(top) :]
    for name, blocks in zip(names, drawn, strict=True):
        later = [ref for ref in below if ref > name]
        (root / f"{name}.rst").write_text(_page(name, blocks, later))
        below = [ref for ref in below if ref <= name or ref in later]
    (root / "pic.png").write_bytes(b"")


def _sphinx_walk() -> Any:
    method: Any = TocTreeCollector.assign_figure_numbers
    while hasattr(method, "__wrapped__"):
        method = method.__wrapped__
    return method


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drawn=pages,
    depth=st.integers(0, 3),
    numbered=st.sampled_from(["", "2", "3"]),
    unnumbered=st.integers(0, 2**12),
)
# The page's number and a section's taken out, after a nested section: the section's
# figure takes the number of the section around it (none), not the nested one's.
@example([[("section", 1), ("section", 2), ("section", 1), ("figure", 1)]], 2, "", 0b1001)
def test_the_numbers_walked_from_structures_are_sphinx_own(
    drawn: list[list[Block]], depth: int, numbered: str, unnumbered: int
) -> None:
    # ``unnumbered``: a mask of the sections (a page's title too) whose numbers are taken
    # out after Sphinx's numbering, as of polybook's {.unnumbered} headings
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "src").mkdir()
        _book(root / "src", drawn, numbered)
        overrides = {"numfig_secnum_depth": depth, "suppress_warnings": ["toc"]}
        app = rst_app(root / "src", root, **overrides)
        doctrees.setup(app)
        kept_numbers.setup(app)
        app.build()
        env = app.env
        anchors = [(doc, a) for doc, found in env.toc_secnumbers.items() for a in found]
        for n, (doc, anchor) in enumerate(sorted(anchors)):
            if unnumbered >> n & 1:
                del env.toc_secnumbers[doc][anchor]
        _sphinx_walk()(None, env)  # Sphinx's own walk, over the doctrees
        theirs = env.toc_fignumbers
        # No doctree left to walk: the numbers come from the structures noted at the read.
        for tree in (root / "doctrees").glob("*.doctree"):
            tree.unlink()
        env._pickled_doctree_cache.clear()
        env._write_doc_doctree_cache.clear()
        env.toc_fignumbers = {}
        kept_numbers.KEPT.unknown = True  # numbered again, not kept
        TocTreeCollector.assign_figure_numbers(None, env)  # type: ignore[arg-type]
        assert env.toc_fignumbers == theirs
