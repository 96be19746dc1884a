"""The header's links (``[html] header_links``): on every page, a row of links above the
page's content on a wide screen, and the same links in the navigation drawer (below the
book's name) where the theme folds its sidebar away (a phone). Each link has its icon
(:mod:`polybook.site.icons`) before its text; a relative URL names a file of the site, from
any page's folder."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from markupsafe import Markup
from sphinx.application import Sphinx

from polybook.config.ini_text import CONFIG_FILE, value_lines
from polybook.config.schema import HtmlSection
from polybook.diagnostics import Diagnostic, Location
from polybook.render.messages import message
from polybook.site.icons import icon_svg
from polybook.site.links import HEADER, is_external

PLACES = ("top", "drawer")  # above the content; in the navigation drawer


def links_markup(links: Sequence[Sequence[str]], place: str, label: str, pagename: str) -> str:
    """The ``nav`` of ``links`` (name, URL, icon classes) for ``place`` on the page
    ``pagename``, a relative URL made relative to that page's folder."""
    if not links:
        return ""
    items = []
    up = "../" * pagename.count("/")
    for name, url, icon in links:
        href = url if is_external(url) or url.startswith(("#", "/")) else up + url
        items.append(
            f'<a class="pb-header-link" {HEADER} href="{html.escape(href)}">{icon_svg(icon)}'
            f"<span>{html.escape(name)}</span></a>"
        )
    return (
        f'<nav class="pb-header-links pb-header-{place}" aria-label="{html.escape(label)}">'
        f"{''.join(items)}</nav>"
    )


def missing_targets(html_keys: HtmlSection, site: Path, root: Path) -> list[Diagnostic]:
    """The header's relative links that name no file of the built ``site``, each once, at
    its line of the book's (at ``root``) ``config.ini`` (a page's links are not checked)."""
    missing = [
        link
        for link in html_keys.links
        if not is_external(link.url)
        and not link.url.startswith("#")
        and not (site / unquote(urlsplit(link.url).path)).exists()
    ]
    if not missing:
        return []
    try:
        text = (root / CONFIG_FILE).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        text = ""
    lines = value_lines(text, "html", "header_links")
    written = text.splitlines()
    found = []
    for link in missing:
        line = next((n for n in lines if link.url in written[n - 1]), lines[0] if lines else 0)
        message = f"[html] header_links: {link.name!r} links {link.url!r}, no file of the site"
        found.append(Diagnostic(Location(CONFIG_FILE, line), message, "site.link"))
    return found


def _add_links(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    links = app.config.pb_header_links
    label = message(str(app.config.language), "header_links")
    for place in PLACES:
        context[f"pb_header_{place}"] = Markup(links_markup(links, place, label, pagename))


def _add_style(app: Sphinx) -> None:
    """The links' style, in a book that has links: a book without pays no byte for it."""
    if app.config.pb_header_links:
        app.add_css_file("polybook-header.css")


def setup(app: Sphinx) -> None:
    app.add_config_value("pb_header_links", [], "html")
    app.connect("builder-inited", _add_style)
    app.connect("html-page-context", _add_links)
