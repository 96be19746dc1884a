"""``:numref:`` is resolved from the targets noted as each page was read, not from the
target page's doctree (``render.sphinx.numref_targets``)."""

from __future__ import annotations

import os
from pathlib import Path

from polybook.render.sphinx import doctrees, kept_numbers, numref_targets
from polybook.render.sphinx.doctrees import DOCTREES
from tests.sphinx_apps import rst_app

INDEX = "Book\n====\n\n.. toctree::\n   :numbered:\n\n   a\n   b\n"
A = """A
=

See :numref:`fig-b`, :numref:`tab-b`, :numref:`code-b`, :numref:`sec-b` and
:numref:`{{name}} <fig-b>` ({edit}).
"""
B = """B
=

.. _sec-b:

Part
----

.. _fig-b:

.. figure:: pic.png

   Blocks

.. table:: Sizes
   :name: tab-b

   = =
   a b
   = =

.. code-block:: python
   :caption: Code
   :name: code-b

   x = 1
"""


def _saved(page: Path, text: str) -> None:
    page.write_text(text)
    later = page.stat().st_mtime_ns + 2_000_000_000  # a save seconds later
    os.utime(page, ns=(later, later))


def test_a_reference_is_resolved_with_the_target_page_doctree_gone(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.rst").write_text(INDEX)
    (src / "a.rst").write_text(A.format(edit="first"))
    (src / "b.rst").write_text(B)
    (src / "pic.png").write_bytes(b"")
    app = rst_app(src, tmp_path)
    doctrees.setup(app)
    numref_targets.setup(app)
    kept_numbers.setup(app)  # (the figures numbered from the pages noted too)
    app.build()
    first = (tmp_path / "out" / "a.html").read_text()
    # b's doctree unreadable on the disk (as old as it was), gone from memory; a read
    # again and written
    tree = tmp_path / "doctrees" / "b.doctree"
    stamp = tree.stat()
    tree.write_bytes(b"not a doctree")
    os.utime(tree, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    app.env._pickled_doctree_cache.pop("b", None)
    app.env._write_doc_doctree_cache.pop("b", None)
    DOCTREES.kept.pop("b", None)
    _saved(src / "a.rst", A.format(edit="again"))
    app.build()
    page = (tmp_path / "out" / "a.html").read_text()
    assert page == first.replace("first", "again")
    for shown in ("Fig. 2.1", "Table 2.1", "Listing 2.1", "Section 2.1", "Blocks"):
        assert shown in page
    assert "get_doctree" not in vars(app.env)  # nothing of ours is left to pickle
