"""The book's own files a site is made from beside the pages (its static files, BibTeX file,
favicon and logo), named without importing the stage (a build that finds nothing changed
reads them). The files each page read: :mod:`polybook.render.page_inputs`."""

from __future__ import annotations

from pathlib import Path

from polybook.config.schema import HtmlSection, PdfSection


def site_inputs(root: Path, pdf: PdfSection, html: HtmlSection) -> list[Path]:
    """Files the site is made from beside the pages: the static files of the book at
    ``root``, its BibTeX file, favicon and logo."""
    static = root / "static"
    named = [Path(p) for p in (pdf.bibfile, html.favicon, html.html_logo) if p]
    return [*sorted(p for p in static.rglob("*") if p.is_file()), *named]
