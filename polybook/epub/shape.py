"""What the epub is, as its output (:mod:`polybook.epub.output`) declares it and its stage
reads it: each file holds one framework's pages (no tab bars), and the site holds them in
its folder ``_epub/``."""

from __future__ import annotations

PER_FRAMEWORK = True
SITE_FOLDER = "_epub"  # in the site: _epub/<name>-<framework>.epub
