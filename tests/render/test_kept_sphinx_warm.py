"""A kept Sphinx process warms, while it waits for its first build, what that build would
otherwise pay for the whole book: the copied figures known inert, the templates compiled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polybook.render.sphinx import files
from polybook.render.sphinx.run import _warm

from ..sphinx_apps import rst_app

FIGURE = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4"/></svg>'
EXTENSIONS = ["polybook.render.sphinx.core_ext"]


def _app(src: Path, work: Path) -> Any:
    return rst_app(src, work, extensions=EXTENSIONS, pb_book_root=str(src))


def test_a_warmed_process_knows_its_figures_inert_and_holds_its_templates(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "box.svg").write_text(FIGURE)
    (src / "index.rst").write_text("Index\n=====\n\n.. image:: box.svg\n")
    _app(src, tmp_path).build()  # the build before the kept one
    [copied] = (tmp_path / "out" / "_images").glob("box*.svg")
    files._INERT.memo.clear()
    kept = _app(src, tmp_path)
    environment = kept.builder.templates.environment
    assert files._INERT.known([copied]) is None
    assert not [t for t in environment.cache.values() if t.name == "page.html"]
    _warm(kept)
    assert files._INERT.known([copied]) is True
    assert [t for t in environment.cache.values() if t.name == "page.html"]


def test_a_warmed_process_holds_each_folders_navigation_and_its_cells_lexers(
    tmp_path: Path,
) -> None:
    from pygments.lexers import PythonLexer  # type: ignore[import-untyped]

    from polybook.render.sphinx.highlight import CellLexer
    from polybook.site import navigation

    src = tmp_path / "src"
    for folder in ("one", "two"):
        (src / folder).mkdir(parents=True)
        (src / folder / "page.rst").write_text(f"Page {folder}\n=========\n\nWords.\n")
    toctree = ".. toctree::\n\n   one/page\n   two/page\n"
    (src / "index.rst").write_text(f"Index\n=====\n\n{toctree}")
    extensions = [*EXTENSIONS, "polybook.render.sphinx.highlight", "polybook.site.sphinx_html"]
    build = rst_app(src, tmp_path, extensions=extensions, html_theme="furo")
    build.build()
    kept = rst_app(src, tmp_path, extensions=extensions, html_theme="furo")
    for lexer in (CellLexer, PythonLexer):  # their rules compiled afresh when made
        if "_tokens" in lexer.__dict__:
            delattr(lexer, "_tokens")
    _warm(kept)
    trees = kept.builder.__dict__.get(navigation.CACHE, {})
    assert {folder for folder, _ in trees} == {"", "one", "two"}
    assert all("_tokens" in lexer.__dict__ for lexer in (CellLexer, PythonLexer))
