"""The language switcher: on every page, links to the same page in the book's other
editions (``[edition-<name>]``), or to an edition's front page where it has no such page,
with ``hreflang`` alternates in the page's head. An edition's site is its ``url``, else its
built site beside this one (``<root>/_build/html``), linked relatively: it works from
``file://``."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from polybook.config import Book, load_config
from polybook.config.schema import Edition
from polybook.diagnostics import PolybookError
from polybook.fsutil import write_atomic
from polybook.layout import Layout
from polybook.render.messages import language_name, message
from polybook.site.links import EDITION

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def edition_pages(root: Path) -> list[str]:
    """The pages of the book at ``root``, as Sphinx names them (``chap/intro``)."""
    found = []
    for path in root.rglob("*.md"):
        parts = path.relative_to(root).parts
        if any(p.startswith((".", "_")) for p in parts[:-1]):
            continue
        found.append(path.relative_to(root).with_suffix("").as_posix())
    return sorted(found)


def _lang(root: Path, declared: str) -> str:
    if declared:
        return declared
    try:
        return load_config(root).project.lang
    except PolybookError:
        return "en"


def editions_config(book: Book, editions: Sequence[Edition]) -> dict[str, Any]:
    """``pb_editions``: per edition of ``editions`` (the book's others), its language,
    where its site is and its pages."""
    site = book.layout.html
    found = []
    for edition in editions:
        base = edition.url.rstrip("/") or os.path.relpath(Layout(edition.root).html, site)
        found.append(
            {
                "name": edition.name,
                "lang": _lang(edition.root, edition.lang),
                "base": base.replace(os.sep, "/"),
                "absolute": bool(edition.url),
                "pages": edition_pages(edition.root) if edition.root.is_dir() else [],
            }
        )
    return {"pb_editions": found, "pb_lang": book.project.lang}


def counterparts(app: Sphinx, pagename: str) -> list[tuple[str, str]]:
    """(language, address) of ``pagename`` in each edition (its front page where it lacks
    the page), relative to the page unless the edition has a ``url``."""
    up = "../" * pagename.count("/")
    found = []
    for edition in app.config.pb_editions:
        page = pagename if pagename in edition["pages"] else "index"
        prefix = "" if edition["absolute"] else up
        found.append((str(edition["lang"]), f"{prefix}{edition['base']}/{page}.html"))
    return found


def _add_switcher(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if not app.config.pb_editions or doctree is None:
        return
    own = str(app.config.pb_lang)
    links = counterparts(app, pagename)
    context["metatags"] = context.get("metatags", "") + "".join(
        f'<link rel="alternate" hreflang="{html.escape(lang)}" {EDITION}'
        f' href="{html.escape(href)}">\n'
        for lang, href in links
    )
    items = "".join(
        f'<a class="pb-edition" {EDITION} hreflang="{html.escape(lang)}" lang="{html.escape(lang)}"'
        f' href="{html.escape(href)}">{html.escape(language_name(lang))}</a>'
        for lang, href in links
    )
    label = html.escape(message(own, "other_languages"))
    switcher = f'<nav class="pb-editions" aria-label="{label}">{items}</nav>'
    context["body"] = switcher + context.get("body", "")


SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def _sitemap_alternates(app: Sphinx, error: Exception | None) -> None:
    """``hreflang`` alternates in sphinx-sitemap's ``sitemap.xml`` (written before this runs):
    each page's counterpart in every edition published at a ``url``."""
    sitemap = Path(app.outdir) / "sitemap.xml"
    published = [e for e in app.config.pb_editions if e["absolute"]]
    if error is not None or not published or not sitemap.is_file():
        return
    ElementTree.register_namespace("", SITEMAP_NS)
    ElementTree.register_namespace("xhtml", XHTML_NS)
    tree = ElementTree.parse(sitemap)
    base = str(app.config.html_baseurl).rstrip("/") + "/"
    for entry in tree.getroot().iter(f"{{{SITEMAP_NS}}}url"):
        loc = entry.find(f"{{{SITEMAP_NS}}}loc")
        page = (loc.text or "") if loc is not None else ""
        name = page.removeprefix(base).removesuffix(".html")
        for edition in published:
            if name in edition["pages"]:
                link = ElementTree.SubElement(entry, f"{{{XHTML_NS}}}link")
                link.attrib.update(
                    rel="alternate", hreflang=edition["lang"], href=f"{edition['base']}/{name}.html"
                )
    write_atomic(
        sitemap, ElementTree.tostring(tree.getroot(), xml_declaration=True, encoding="utf-8")
    )


def _add_script(app: Sphinx) -> None:
    if app.config.pb_editions:
        app.add_js_file("polybook-editions.js")


def setup(app: Sphinx) -> None:
    app.add_config_value("pb_editions", [], "html")
    app.add_config_value("pb_lang", "en", "html")
    app.connect("builder-inited", _add_script)
    app.connect("html-page-context", _add_switcher)
    app.connect("build-finished", _sitemap_alternates, priority=900)  # after sphinx-sitemap
