"""The hand-written pages of tests/site_fixture/, which the tab and compare tests drive in
Chromium, hold the markup a real build of the site writes (the shipped book's): the same
tab sets, tab bars, tabs and panels (tags, classes, roles, data attributes, ARIA), only
code blocks and outputs shaped as the site shapes them, and the head's ``pb-`` metas and
polybook scripts in the site's order. So the pages cannot drift from what the site emits.
The shipped book names no cell by id, so a one-page book whose tabbed cell does stands
beside it for the anchors a tab holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..books import FENCE, build, write_book
from ..site_markup import TabSetMarkup, head_markup

pytestmark = pytest.mark.slow  # the shipped book's site is built

FIXTURE = Path(__file__).resolve().parents[1] / "site_fixture"


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


@pytest.fixture(scope="module")
def named_cells(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of a page whose cell has an id and a variant per framework."""
    cells = "".join(
        f"{FENCE}{{.python .input #arange}}\n%%tab {fw}\nx = {i}\n{FENCE}\n\n"
        for i, fw in enumerate(("pytorch", "mxnet", "jax", "tensorflow"))
    )
    root = write_book(
        tmp_path_factory.mktemp("named") / "book",
        {"index.md": f"# Named\n\n{cells}"},
        "[build]\ntabs = pytorch, mxnet, jax, tensorflow\neval_notebook = False\n",
    )
    assert build(root, "html") == 0
    return root / "_build" / "html"


def test_the_fixture_pages_tab_sets_are_marked_up_as_the_site_marks_them_up(
    shipped_site: Path, named_cells: Path
) -> None:
    site, fixture = TabSetMarkup(), TabSetMarkup()
    for path in [*_pages(shipped_site / "_build" / "html"), *_pages(named_cells)]:
        site.add(path.read_text(encoding="utf-8"))
    for path in _pages(FIXTURE):
        fixture.add(path.read_text(encoding="utf-8"))
    kinds = ("[data-pb-kind=code]", "[data-pb-kind=prose]")
    assert all(any(kind in path for path in site.frame) for kind in kinds)
    assert sorted(fixture.frame - site.frame) == [], "tab set markup the site does not write"
    assert sorted(site.frame - fixture.frame) == [], "tab set markup the fixture pages lack"
    assert sorted(fixture.content - site.content) == [], "panel content the site does not write"


def test_the_fixture_pages_heads_name_what_the_sites_do(shipped_site: Path) -> None:
    metas, scripts = head_markup((shipped_site / "_build" / "html" / "index.html").read_text())
    assert {"pb-tabs", "pb-tab-labels"} <= metas
    for path in _pages(FIXTURE):
        own_metas, own_scripts = head_markup(path.read_text(encoding="utf-8"))
        assert own_metas <= metas, path.name
        assert own_scripts == [s for s in scripts if s in own_scripts], path.name  # in order
        # the tabs script, after every script the site loads before it (what it relies on)
        first = scripts[: scripts.index("polybook-tabs.js") + 1]
        assert own_scripts[: len(first)] == first, path.name
