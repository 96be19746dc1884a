"""Links between the library's code and its API entries, in every output of the book.

The output writes the library's API index (``_pb_api.json``) into Sphinx's sources (the site
lists every saved name; the PDF an empty one). A cell that saves a name its page is the first
to save gets the entry's anchor, and a line linking to the entry: HTML shows it, other
builders leave it out.
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from polybook.diagnostics import PolybookError
from polybook.library.extract import public_names
from polybook.library.saves import source_blocks
from polybook.memo import FileMemo
from polybook.render.names import INDEX_FILE, anchor

_API: FileMemo[dict[str, Any]] = FileMemo(4)  # the API index, while its file is unchanged


class pb_saved(nodes.General, nodes.Element):
    """Links from saved code to its API entries: ``items`` of (framework, label, doc, id)."""


def api(env: Any) -> dict[str, Any]:
    """The API index the site stage wrote (empty without one), read once per change."""
    path = Path(env.srcdir) / INDEX_FILE
    return _API.value([path], functools.partial(_read_api, path))


def _read_api(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    found: dict[str, Any] = json.loads(text)
    return found


def _saved_names(source: str) -> list[str]:
    if "#@save" not in source:
        return []
    try:
        return list(public_names(source_blocks(source, lambda _: 0, "", 0, "")))
    except (PolybookError, SyntaxError, ValueError):
        return []


def saved_links(env: Any, source: str, owners: Sequence[str]) -> tuple[list[str], list[Any]]:
    """(ids for the code, a :class:`pb_saved` or nothing) of a cell shown to ``owners``.

    A name gets both where this page is the one that saves it, at its first saving cell.
    """
    names = _saved_names(source)
    if not names:
        return [], []
    env.note_dependency(str(Path(env.srcdir) / INDEX_FILE))
    index = api(env)
    claimed = env.temp_data.setdefault("pb_claimed", set())
    ids, items = [], []
    for fw in owners:
        library = index.get(fw, {})
        for name in names:
            entry = library.get("names", {}).get(name)
            if entry and entry["page"] == env.docname and (fw, name) not in claimed:
                claimed.add((fw, name))
                ids.append(anchor(fw, name))
                items.append((fw, f"d2l.{name}", library["doc"], entry["id"]))
    return ids, [pb_saved(items=items, follow=len(owners) > 1)] if items else []


def visit_saved_html(self: Any, node: pb_saved) -> None:
    """The links to the entries autodoc made: a name no page documents (a page of the book
    may document a few of a module's names) is left unlinked."""
    here = self.builder.current_docname
    documented = self.builder.env.get_domain("py").objects
    items = []
    for fw, label, _, target in node["items"]:
        entry = documented.get(target)
        if entry is None:
            continue
        href = f"{self.builder.get_relative_uri(here, entry.docname)}#{entry.node_id}"
        follow = f' data-pb-follow="{html.escape(fw)}"' if node["follow"] else ""
        items.append(
            f'<span class="pb-saved-item"{follow}><a class="pb-saved-link"'
            f' href="{html.escape(href)}"><code>{html.escape(label)}</code></a></span>'
        )
    if items:
        self.body.append(f'<p class="pb-saved">Saved in the library: {"".join(items)}</p>')
    raise nodes.SkipNode


def skip(self: Any, node: nodes.Element) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> None:
    app.add_node(pb_saved, html=(visit_saved_html, None), latex=(skip, None), text=(skip, None))
