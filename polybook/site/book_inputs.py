"""The book's own files a site is made from beside the pages and the files its keys name (the
BibTeX file, favicon and logo: see the keys' ``read_by``), named without importing the stage
(a build that finds nothing changed reads them). The files each page read:
:mod:`polybook.render.page_inputs`."""

from __future__ import annotations

from pathlib import Path


def site_inputs(root: Path) -> list[Path]:
    """The static files of the book at ``root``."""
    static = root / "static"
    return sorted(p for p in static.rglob("*") if p.is_file())
