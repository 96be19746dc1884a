"""The site's Sphinx extension, loaded after :mod:`polybook.render.sphinx.core_ext`: the tabs'
script and style, the book's tabs in each page's head, the reader's features (see
:mod:`polybook.site.reader`) and the theme's templates kept compiled between runs."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from jinja2 import FileSystemBytecodeCache
from sphinx.application import Sphinx

from polybook.render import messages
from polybook.render.sphinx import parallel_write
from polybook.render.sphinx.core_ext import display_name
from polybook.site import early, editions, header, lean_assets, math_svg, navigation, reader, search
from polybook.site.compat import DATA_SCRIPT
from polybook.site.compat_view import host_notes, hosts_html, insert_after_title, lines_html


def _meta_tabs(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    tabs = ",".join(app.config.pb_tabs)
    labels = html.escape(",".join(display_name(app.config, t) for t in app.config.pb_tabs))
    context["metatags"] = (
        context.get("metatags", "")
        + f'<meta name="pb-tabs" content="{tabs}">\n'
        + f'<meta name="pb-tab-labels" content="{labels}">\n'
    )


def _add_messages(app: Sphinx) -> None:
    """The catalog in the book's language, for the scripts, before them on every page; an
    English book's pages carry none (the scripts hold the English words themselves)."""
    language = str(app.config.language)
    if messages.base_language(language) != messages.DEFAULT:
        app.add_js_file(None, body=messages.script(language), priority=400)


def _keep_compiled_templates(app: Sphinx) -> None:
    """The theme's templates, compiled, kept between runs beside the doctrees (Jinja checks
    each against its source): a run that writes one page does not compile them all again."""
    environment = getattr(getattr(app.builder, "templates", None), "environment", None)
    if environment is not None:
        folder = Path(app.doctreedir) / "templates"
        folder.mkdir(parents=True, exist_ok=True)
        environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


def _add_compat(app: Sphinx) -> None:
    """The view of `polybook compat`'s record, in a book that has one (or checks every
    week): a book without pays no byte for it."""
    if app.config.pb_compat:
        app.add_js_file("polybook-compat.js")


def _page_compat(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Under the page's title, one line saying which tabs' outputs came from which host
    (where another host made some) and, in a book checked by ``polybook compat``
    (``DATA_SCRIPT``, written before Sphinx runs), its "works with" lines; its results in
    its head (a page loads its results, not the whole book's) for the script that shows a
    newer weekly check."""
    here, tabs = app.builder.get_target_uri(pagename), list(app.config.pb_tabs)
    body = str(context.get("body", ""))
    notes = host_notes(body)
    hosts = hosts_html(notes, tabs, {fw: display_name(app.config, fw) for fw in tabs})
    if not app.config.pb_compat:
        context["body"] = insert_after_title(body, hosts)
        return
    script = Path(app.srcdir) / "_static" / DATA_SCRIPT
    text = script.read_text(encoding="utf-8") if script.is_file() else ""
    record = json.loads(text.partition("=")[2].strip().rstrip(";") or "null") or {}
    page = f"{pagename}.md"
    mine = [r for r in record.get("results", []) if r.get("page") == page]
    data = json.dumps({**record, "results": mine}, sort_keys=True).replace("</", "<\\/")
    context["metatags"] = (
        context.get("metatags", "") + f"<script>window.polybookCompatData = {data};</script>\n"
    )
    context["body"] = insert_after_title(body, lines_html(mine, page, tabs, here, notes) + hosts)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("polybook.render.sphinx.core_ext")  # its events come first
    reader.setup(app)
    search.setup(app)
    editions.setup(app)
    math_svg.setup(app)
    parallel_write.setup(app)
    navigation.setup(app)
    early.setup(app)
    header.setup(app)
    lean_assets.setup(app)
    app.connect("html-page-context", _meta_tabs)
    app.connect("builder-inited", _keep_compiled_templates)
    app.connect("builder-inited", _add_messages)
    scripts = (
        "polybook-address.js",
        "polybook-tabs.js",
        "polybook-diff.js",
        "polybook-compare-controls.js",
        "polybook-compare.js",
        "polybook-switcher.js",
    )
    for script in scripts:
        app.add_js_file(script)  # in this order: the others are views of the tabs
    app.add_config_value("pb_compat", False, "html")
    app.connect("builder-inited", _add_compat)
    app.connect("html-page-context", _page_compat)
    app.add_css_file("polybook.css")
    app.add_css_file("polybook-layout.css")
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
