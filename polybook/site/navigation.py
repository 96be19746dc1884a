"""The site's navigation tree, computed once instead of once per page.

The theme (furo) shows on each page the whole book's toctree, every page expanded, the
page's branch marked "current". Sphinx builds it anew for each page, copying the toctree of
every page of the book, and furo then reads and rewrites it as HTML: the cost grows with the
square of the book's size, and was two thirds of the site's build on a 200-page book.

Here the tree is made once, for the book's root: its links are relative, so each folder's
tree is the root's with its links made relative to that folder; furo's rewriting of the
tree (checkboxes, icons: it reads no link) is done once too, on the root's tree, by the
process that writes the first page, before the writers fork. For a page, its folder's
tree is marked as Sphinx and furo mark it: the page's own link becomes ``#`` with the
``current`` class; each list and item around it gets ``current``, each item's expanding
checkbox is ``checked``, the innermost item is the ``current-page``. Where the tree holds
what these rules do not cover (an image in a title, a page named twice), Sphinx and furo make
the page's tree as before.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any

from sphinx.application import Sphinx
from sphinx.util.osutil import relative_uri

from polybook.render.sphinx.deferred import KEPT_WARMING
from polybook.render.sphinx.small_builds import LISTED

CACHE = "pb_navigation"  # on the builder: folder -> that folder's tree
NEUTRAL = "__pb_navigation__"  # a docname no toctree names
FURO = {"collapse": False, "titles_only": True, "maxdepth": -1, "includehidden": True}
TAG = re.compile(r"<ul>|<ul class=\"[^\"]*\">|</ul>|<li class=\"[^\"]*\">|</li>")
INTERNAL = re.compile(r'<a class="reference internal" href="([^"#]*)(#[^"]*)?">')
CHECKBOX = re.compile(r'<input aria-label="[^"]*"( class="toctree-checkbox")')


def neutral(folder: str) -> str:
    return posixpath.join(folder, NEUTRAL) if folder else NEUTRAL


def mark_current(tree: str, href: str, furo: bool = False) -> str | None:
    """``tree`` (the navigation with nothing current) as the page whose link is ``<a
    class="reference internal" href="HREF">`` shows it: unchanged where no toctree names the
    page; None where it is named twice. ``furo``: ``tree`` is furo's navigation (items with
    children carry a checkbox and ``has-children``)."""
    link = f'<a class="reference internal" href="{href}">'
    at = tree.find(link)
    if at < 0:
        return tree
    if tree.find(link, at + 1) >= 0:
        return None
    around: list[re.Match[str]] = []  # the ul and li elements around ``at``
    for tag in TAG.finditer(tree, 0, at):
        if tag.group().startswith("</"):
            around.pop()
        else:
            around.append(tag)
    items = [tag for tag in around if tag.group().startswith("<li")]
    edits = [(at, len(link), '<a class="current reference internal" href="#">')]
    for tag in around:
        text = tag.group()
        if text == "<ul>":
            edits.append((tag.start(), len(text), '<ul class="current">'))
            continue
        level, _, rest = text.removeprefix('<li class="').removesuffix('">').partition(" ")
        classes = [level, "current", *rest.split()]
        if furo and tag is items[-1]:
            classes.append("current-page")
        edits.append((tag.start(), len(text), f'<li class="{" ".join(classes)}">'))
        box = CHECKBOX.search(tree, tag.end()) if "has-children" in classes else None
        if box is not None:  # furo's checkbox of the item (before its list): checked
            edits.append((box.start(1), 0, ' checked=""'))
    parts, last = [], 0
    for position, length, text in sorted(edits):
        parts += [tree[last:position], text]
        last = position + length
    parts.append(tree[last:])
    return "".join(parts)


def _relinked(root_tree: str, app: Sphinx, folder: str) -> str | None:
    """The root's tree with its links relative to ``folder``; None where it has other
    relative addresses (an image)."""
    if " src=" in root_tree:
        return None
    builder = app.builder
    base = builder.get_target_uri(neutral(folder))
    root = builder.get_target_uri(neutral(""))

    def move(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(root), match.group(1)))
        href = relative_uri(base, target) + (match.group(2) or "")
        return f'<a class="reference internal" href="{href}">'

    return INTERNAL.sub(move, root_tree)


def folder_tree(app: Sphinx, folder: str, furo: Callable[[str], str] | None = None) -> str:
    """The navigation of the pages of ``folder`` with nothing current (furo's, given its
    rewriting ``furo``); computed once per build."""
    cache: dict[tuple[str, bool], str] = app.builder.__dict__.setdefault(CACHE, {})
    key = (folder, furo is not None)
    if key not in cache:
        builder: Any = app.builder  # Sphinx's HTML builder: the theme asks it the same
        if not folder:
            made = str(builder._get_local_toctree(neutral(""), **FURO))
            cache[key] = furo(made) if furo is not None else made
            return cache[key]
        # furo's rewriting reads no link: the root's rewritten tree, relinked, is the same
        moved = _relinked(folder_tree(app, "", furo), app, folder)
        if moved is None and furo is not None:
            moved = furo(folder_tree(app, folder))
        elif moved is None:
            moved = str(builder._get_local_toctree(neutral(folder), **FURO))
        cache[key] = moved
    return cache[key]


def install_furo(app: Sphinx) -> None:
    """Furo's navigation from the folders' trees, marked for each page."""
    if app.builder.format != "html" or app.config.html_theme != "furo":
        return
    import furo
    from furo.navigation import get_navigation_tree

    computed = furo._compute_navigation_tree

    def navigation(context: dict[str, Any]) -> str:
        page = str(context.get("pagename", ""))
        if "toctree" not in context or not page:
            return str(computed(context))
        folder = posixpath.dirname(page)
        href = app.builder.get_relative_uri(neutral(folder), page)
        marked = mark_current(folder_tree(app, folder, get_navigation_tree), href, furo=True)
        return marked if marked is not None else str(computed(context))

    furo._compute_navigation_tree = navigation


def warm_navigation(app: Sphinx) -> None:
    """Each folder's navigation (furo's) made, as writing a first page of the folder makes
    it: a process kept between builds makes them while it waits."""
    if app.builder.format != "html" or app.config.html_theme != "furo":
        return
    from furo.navigation import get_navigation_tree

    for folder in sorted({posixpath.dirname(name) for name in app.env.found_docs}):
        folder_tree(app, folder, get_navigation_tree)


def forget(app: Sphinx, *args: Any) -> None:
    """A build's trees are its own (``polybook serve`` builds again in one process), unless
    no page it read changed what the book's listings show of it."""
    if not LISTED.unchanged:
        app.builder.__dict__.pop(CACHE, None)


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", install_furo)
    app.connect("write-started", forget, priority=600)  # once LISTED has compared
    app.connect(KEPT_WARMING, warm_navigation)
