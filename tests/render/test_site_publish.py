"""The site's extra files are copied into the site by the build (``site.publish``): what
changed is copied, what went goes from the folders the build owns, the rest stays."""

from __future__ import annotations

import os
from pathlib import Path

from polybook.site.publish import publish_extras


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_changed_files_are_copied_and_gone_ones_removed_from_owned_folders(tmp_path: Path) -> None:
    extra, site = tmp_path / "extra", tmp_path / "site"
    (extra / "_notebooks" / "pytorch").mkdir(parents=True)
    (extra / "_notebooks" / "pytorch" / "a.ipynb").write_text("a1")
    (extra / "_notebooks" / "pytorch" / "b.ipynb").write_text("b1")
    (extra / "_dist").mkdir()
    (extra / "_dist" / "d2l-1.whl").write_text("wheel")
    (site / "_static").mkdir(parents=True)
    (site / "_static" / "theme.css").write_text("Sphinx's")  # not the build's: stays
    assert publish_extras(extra, site, ["_notebooks", "_dist"]) == 3
    assert _tree(site) == {**_tree(extra), "_static/theme.css": "Sphinx's"}
    assert publish_extras(extra, site, ["_notebooks", "_dist"]) == 0  # nothing changed

    (extra / "_notebooks" / "pytorch" / "a.ipynb").write_text("a2, longer")
    (extra / "_notebooks" / "pytorch" / "b.ipynb").unlink()
    (extra / "_dist" / "d2l-1.whl").rename(extra / "_dist" / "d2l-2.whl")
    assert publish_extras(extra, site, ["_notebooks", "_dist"]) == 4
    assert _tree(site) == {**_tree(extra), "_static/theme.css": "Sphinx's"}
    assert not any(p.name.startswith(".") for p in site.rglob("*"))  # no temporary file left


def test_a_file_changed_at_its_size_is_copied_by_its_time(tmp_path: Path) -> None:
    extra, site = tmp_path / "extra", tmp_path / "site"
    extra.mkdir()
    (extra / "page.ipynb").write_text("one")
    publish_extras(extra, site, [])
    (extra / "page.ipynb").write_text("two")  # the same size
    stamp = (site / "page.ipynb").stat().st_mtime_ns + 1_000_000
    os.utime(extra / "page.ipynb", ns=(stamp, stamp))
    assert publish_extras(extra, site, []) == 1
    assert (site / "page.ipynb").read_text() == "two"
