"""The site's navigation tree, computed once per folder instead of once per page.

The theme asks each page for the whole book's toctree (every page, expanded) with the page's
branch marked "current". Sphinx builds it anew for each page, copying the toctree of every
page of the book: the cost grows with the square of the book's size, and was two thirds of
the site's build on a 200-page book. Links in it are relative, so they are the same for
every page of one folder; what differs is the marking, which this module adds to the
folder's tree as Sphinx does: the page's own link becomes ``#`` with the ``current`` class,
and each list and item around it gets ``current``. Where the page's link is found twice,
Sphinx's own tree is used.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from sphinx.application import Sphinx

CACHE = "pb_navigation"  # on the builder: (folder, options) -> the folder's tree
NEUTRAL = "__pb_navigation__"  # a docname no toctree names, in the page's folder
TAG = re.compile(r"<ul>|<ul class=\"[^\"]*\">|</ul>|<li class=\"[^\"]*\">|</li>")


def mark_current(tree: str, href: str) -> str | None:
    """``tree`` (a toctree's HTML with nothing current) as Sphinx gives it to the page whose
    link is ``<a class="reference internal" href="HREF">``: unchanged where no toctree
    names the page; None where it is named twice (Sphinx's own rules then apply)."""
    link = f'<a class="reference internal" href="{href}">'
    at = tree.find(link)
    if at < 0:
        return tree
    if tree.find(link, at + 1) >= 0:
        return None
    open_tags: list[re.Match[str]] = []  # the ul and li elements around ``at``
    for tag in TAG.finditer(tree, 0, at):
        if tag.group().startswith("</"):
            open_tags.pop()
        else:
            open_tags.append(tag)
    parts, last = [], 0
    for tag in open_tags:
        text = tag.group()
        parts.append(tree[last : tag.start()])
        parts.append('<ul class="current">' if text == "<ul>" else text[:-2] + ' current">')
        last = tag.end()
    parts.append(tree[last:at] + '<a class="current reference internal" href="#">')
    parts.append(tree[at + len(link) :])
    return "".join(parts)


def _neutral(folder: str) -> str:
    return posixpath.join(folder, NEUTRAL) if folder else NEUTRAL


def _folder_tree(app: Sphinx, folder: str, options: dict[str, Any]) -> str:
    cache: dict[tuple[str, str], str] = app.builder.__dict__.setdefault(CACHE, {})
    key = (folder, repr(sorted(options.items())))
    if key not in cache:
        builder: Any = app.builder  # Sphinx's HTML builder: the theme asks it the same
        cache[key] = str(builder._get_local_toctree(_neutral(folder), **options))
    return cache[key]


def navigation_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Before the theme's handler: the page's ``toctree`` function answers the full tree
    from its folder's, marked for the page."""
    original = context.get("toctree")
    if original is None or app.builder.format != "html":
        return

    def toctree(**options: Any) -> str:
        if options.get("collapse", True) is not False:  # a collapsed tree is the page's own
            return str(original(**options))
        folder = posixpath.dirname(pagename)
        href = app.builder.get_relative_uri(_neutral(folder), pagename)
        marked = mark_current(_folder_tree(app, folder, options), href)
        return marked if marked is not None else str(original(**options))

    context["toctree"] = toctree


def forget(app: Sphinx, *args: Any) -> None:
    """Each build's trees are its own (``polybook serve`` builds again in one process)."""
    app.builder.__dict__.pop(CACHE, None)


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", navigation_context, priority=400)  # before the theme
    app.connect("env-updated", forget)
