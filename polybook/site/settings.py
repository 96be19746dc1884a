"""The site's Sphinx settings: the render core's, and those of the HTML builder, the theme
and the reader's features (copy buttons, downloads, links, favicon, logo)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from polybook.config.schema import HtmlSection
from polybook.fsutil import tree_hash
from polybook.library.model import SavedBlock
from polybook.render.page_inputs import inputs_digest
from polybook.render.sphinx.config import core_config, hash_tree, tool_digest
from polybook.site.compat import COMPAT_LINK, SCHEDULED
from polybook.site.editions import editions_config
from polybook.site.extras import held_links, links
from polybook.site.places import sphinx_inputs
from polybook.site.sections import SiteSections

SITE_CODE = Path(__file__).resolve().parent  # the site's code, its extension and static files
STATIC = SITE_CODE / "static"  # the tool's own CSS and JavaScript
TEMPLATES = SITE_CODE / "templates"  # the theme's page, with the framework switcher
# Code blocks that get a copy button: not outputs (highlighted as ``none``).
COPY_SELECTOR = 'div[class*="highlight-"]:not(.highlight-none) div.highlight pre'


def _book_assets(root: Path, pattern: str) -> list[str]:
    folder = root / "static"
    return sorted(p.name for p in folder.glob(pattern)) if folder.is_dir() else []


def _reader_config(
    site: SiteSections,
    notebooks: Sequence[str],
    generated: Sequence[str],
    coded: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Settings of the reader's features: copy buttons, links, the header's links, favicon,
    logo."""
    book = site.book
    settings: dict[str, Any] = {
        "copybutton_selector": COPY_SELECTOR,
        "html_use_index": any(d.startswith("api/") for d in generated),
        "pb_links": links(book, site.colab, site.sagemaker, book.tabs, notebooks),
        "pb_held": held_links(book, site.linked),  # the outputs it holds, with their links
        # Per framework, the pages offered as notebooks (those with code); None: every page.
        "pb_code_pages": {fw: list(p) for fw, p in coded.items()} if coded is not None else None,
        "pb_generated": list(generated),
        "pb_header_links": [[link.name, link.url, link.icon] for link in site.html.links],
    }
    compat = (book.layout.site_extra / COMPAT_LINK).is_dir()
    settings["pb_compat"] = compat or (book.root / SCHEDULED).is_file()  # pages show its line
    for setting, path in (
        ("html_favicon", site.html.favicon),
        ("html_logo", site.html.html_logo),
    ):
        if path and Path(path).is_file():
            settings[setting] = path
    settings.setdefault("html_favicon", str(STATIC / "polybook-favicon.svg"))  # the tool's own
    return settings


def html_config(
    site: SiteSections,
    notebooks: Sequence[str] = (),
    generated: Sequence[str] = (),
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
    coded: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The site's Sphinx settings; ``notebooks`` names the frameworks whose notebooks the
    site holds, ``generated`` the pages it adds (API pages, references), ``coded`` the
    pages with code of each framework (None: not known, every page)."""
    book = site.book
    sitemap = ["sphinx_sitemap"] if site.html.base_url else []
    core = core_config(
        book,
        site.build,
        libraries,
        leading=["sphinx_copybutton"],
        output=["polybook.site.sphinx_html", *sitemap],
    )
    return {
        **core,
        "html_theme": "furo",
        "templates_path": [str(TEMPLATES)],  # the theme's page, with the switcher
        "html_title": book.project.title,
        # Generated assets (MathJax), the tool's files, then the book's (which may override).
        "html_static_path": [
            "_static",
            str(STATIC),
            *([str(book.root / "static")] if (book.root / "static").is_dir() else []),
        ],
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "mathjax_path": "mathjax/tex-chtml.js",
        "html_math_renderer": "pb-svg",  # math drawn at build time (polybook.site.math_svg)
        "pb_math_cache": str(book.layout.math_cache),
        "pb_inert_cache": str(book.layout.inert_cache),
        "html_search_scorer": str(STATIC / "polybook-scorer.js"),  # the search's ranking
        "html_css_files": _book_assets(book.root, "*.css"),
        "html_js_files": _book_assets(book.root, "*.js"),
        **_reader_config(site, notebooks, generated, coded),
        **_published(site.html),
        **editions_config(book, site.editions),
        "pb_inputs": str(sphinx_inputs(book.layout)),
    }


def _published(html: HtmlSection) -> dict[str, Any]:
    """Where the site is published, when ``[html] base_url`` says: each page's canonical URL
    and the sitemap (sphinx-sitemap) name pages there."""
    if not html.base_url:
        return {}
    return {"html_baseurl": html.base_url, "sitemap_url_scheme": "{link}"}


def _assets_digest(root: Path, html: HtmlSection) -> str:
    """Hash of the book's static files (sub-folders too), which Sphinx copies as they are,
    and of its favicon and logo."""
    import hashlib

    digest = hashlib.sha256()
    tree_hash(digest, root / "static")
    for path in (html.favicon, html.html_logo):
        if path and Path(path).is_file():
            hash_tree(digest, Path(path).parent, [Path(path)])
    return digest.hexdigest()


@functools.cache
def site_digest() -> str:
    """What renders every page of the site (see :func:`.tool_digest`), as this process
    loaded it: its code does not change under it (a new release is a new process)."""
    return tool_digest(SITE_CODE)


def site_settings(
    site: SiteSections,
    notebooks: Sequence[str] = (),
    generated: Sequence[str] = (),
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
    coded: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """What the Sphinx process is given; any change to it means Sphinx runs again."""
    layout = site.book.layout
    return {
        "srcdir": str(layout.site_src),
        "outdir": str(layout.html),
        "builder": "html",
        "doctreedir": str(layout.doctrees),
        "diagnostics": str(layout.sphinx_file("html", ".diagnostics.jsonl")),
        "log": str(layout.sphinx_file("html", ".log")),
        "config": html_config(site, notebooks, generated, libraries, coded),
        "assets": _assets_digest(site.book.root, site.html),
        "inputs": inputs_digest([sphinx_inputs(layout)]),  # the files the pages read
        "tool": site_digest(),
    }
