"""The site's reader features: notebook and platform links on every page, the API
entries' links back to the code that saves them, and search snippets that work from
``file://``."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole
from sphinx.util.osutil import relative_uri

from polybook.render.messages import message
from polybook.render.names import anchor
from polybook.render.sphinx.deferred import later
from polybook.render.sphinx.library_links import api, skip

logger = logging.getLogger(__name__)
SEARCH_DATA = "pb-search-data.js"  # written into _static: each page's text, by section
SNIPPET_CHARS = 4000  # text kept per section for the search's snippets
PLATFORMS = (("colab", "Colab"), ("sagemaker", "SageMaker Studio Lab"), ("kaggle", "Kaggle"))


class pb_downloads(nodes.General, nodes.Element):
    """The page's notebooks and platform links, one set per framework."""


class pb_defined(nodes.Inline, nodes.Element):
    """Where an API entry is defined; replaced by a link once the pages are numbered."""


def visit_downloads_html(self: Any, node: pb_downloads) -> None:
    config = self.builder.config
    links = config.pb_links
    page = self.builder.get_target_uri(node["docname"])
    lang = str(config.language)
    parts = []
    coded = config.pb_code_pages  # None: every page has code
    for fw in config.pb_tabs:
        if coded is not None and node["docname"] not in coded.get(fw, ()):
            parts += _held(config, node["docname"], page, lang, fw)
            continue
        shown = str(config.pb_tab_names.get(fw, fw))
        name = html.escape(shown)
        hidden = "" if fw == config.pb_tabs[0] else " hidden"  # the script shows the reader's
        follow = f'data-pb-follow="{html.escape(fw)}"{hidden}'
        notebook = f"{node['docname']}.ipynb"
        if links["notebooks"].get(fw):
            href = relative_uri(page, links["notebooks"][fw] + notebook)
            parts.append(
                f'<a class="pb-download" {follow} href="{html.escape(href)}" download>'
                f"{html.escape(message(lang, 'download_notebook', name=shown))}</a>"
            )
        parts += _held(config, node["docname"], page, lang, fw)
        for key, label in PLATFORMS:
            if links.get(key, {}).get(fw):
                href = html.escape(links[key][fw] + notebook)
                parts.append(
                    f'<a class="pb-{key}" {follow} href="{href}" rel="noopener">'
                    f"{html.escape(message(lang, 'open_in', label=label))}"
                    f'<span class="pb-fw"> ({name})</span></a>'
                )
    if parts:
        label = html.escape(message(lang, "page_as_notebook"), quote=True)
        self.body.append(
            f'<div class="pb-downloads" role="group" aria-label="{label}">'
            + "".join(parts)
            + "</div>"
        )
    raise nodes.SkipNode


def _held(config: Any, docname: str, page: str, lang: str, fw: str) -> list[str]:
    """The links to what the site holds of the other outputs of ``fw`` (``pb_held``): this
    page's (its deck) first, then the whole book's (its PDF); offered whether or not the
    page has code."""
    follow = f'data-pb-follow="{html.escape(fw)}"' + ("" if fw == config.pb_tabs[0] else " hidden")
    name = html.escape(str(config.pb_tab_names.get(fw, fw)))
    parts = []
    for key in (docname, ""):
        for held in config.pb_held:
            target = held["files"].get(fw, {}).get(key)
            if not target:
                continue
            said = message(lang, held["message"], label=held["label"])
            parts.append(
                f'<a class="pb-{html.escape(held["name"])}" {follow}'
                f' href="{html.escape(relative_uri(page, target))}">{html.escape(said)}'
                f'<span class="pb-fw"> ({name})</span></a>'
            )
    return parts


class DefinedRole(SphinxRole):
    """``{pb-defined}`FRAMEWORK NAME```: where the API entry of NAME is defined."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        fw, _, name = self.text.partition(" ")
        entry = api(self.env).get(fw, {}).get("names", {}).get(name)
        if entry:  # its title and number can change: read this page again when they do
            self.env.note_dependency(str(Path(self.env.srcdir) / f"{entry['page']}.md"))
        return [pb_defined(framework=fw, name=name)], []


def _resolve_defined(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if docname not in app.config.pb_generated:  # only the API pages say where names are
        return
    index = api(app.env)
    for node in list(doctree.findall(pb_defined)):
        entry = index.get(node["framework"], {}).get("names", {}).get(node["name"])
        if not entry or entry["page"] not in app.env.titles:
            node.replace_self(nodes.Text(""))
            continue
        page = entry["page"]
        number = ".".join(map(str, app.env.toc_secnumbers.get(page, {}).get("", ())))
        title = f"{number} {app.env.titles[page].astext()}".strip()
        uri = app.builder.get_relative_uri(docname, page)
        target = f"{uri}?tab={node['framework']}#{anchor(node['framework'], node['name'])}"
        link = nodes.reference("", title, refuri=target, classes=["pb-defined"])
        node.replace_self([nodes.Text(message(str(app.config.language), "defined_in")), link])


def _add_downloads(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    wanted = any(url for group in app.config.pb_links.values() for url in group.values())
    wanted = wanted or any(held["files"] for held in app.config.pb_held)
    if not wanted or docname in app.config.pb_generated:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None and section.children and isinstance(section[0], nodes.title):
        section.insert(1, pb_downloads(docname=docname))


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format == "html":
        _resolve_defined(app, doctree, docname)
        _add_downloads(app, doctree, docname)
        _lazy_outputs(doctree)


def _lazy_outputs(doctree: nodes.document) -> None:
    """Output images load when shown: those of the frameworks not chosen cost nothing."""
    for image in doctree.findall(nodes.image):
        parent = image.parent
        if parent is not None and "pb-output" in parent.get("classes", ()):
            image["loading"] = "lazy"


# ---- search snippets from file:// -------------------------------------------------------


def _section_texts(doctree: nodes.document) -> list[list[Any]]:
    """[id, prose all frameworks share, {framework: its own prose}, title] of each section:
    its own text, without its sub-sections', code or outputs (the search's snippets)."""
    found: list[list[Any]] = []
    for section in doctree.findall(nodes.section):
        shared: list[str] = []
        own: dict[str, list[str]] = {}
        for child in section.children:
            if isinstance(child, nodes.section):
                continue
            for text in child.findall(nodes.Text):
                parents = _parents(text)  # outputs, and references not resolved yet, left out
                if any(_left_out(p) for p in parents):
                    continue
                tab = next((p.get("tab") for p in parents if p.tagname == "pb_panel"), None)
                (own.setdefault(tab, []) if tab else shared).append(str(text))
        ids = section.get("ids") or [""]
        title = section.next_node(nodes.title)
        found.append(
            [
                ids[0],
                _squeeze(shared),
                {tab: _squeeze(parts) for tab, parts in sorted(own.items())},
                title.astext() if title is not None else "",
            ]
        )
    return found


EMPTY_BRACKETS = re.compile(r"\s*[(\[][\s,;]*[)\]]")  # what a left-out reference leaves


def _squeeze(parts: list[str]) -> str:
    text = EMPTY_BRACKETS.sub("", " ".join(" ".join(parts).split()))
    return text[:SNIPPET_CHARS]


def _left_out(node: nodes.Element) -> bool:
    """Outputs, code, raw HTML and references not resolved yet: not prose for a snippet."""
    return "pb-output" in node.get("classes", ()) or node.tagname in (
        "pending_xref",
        "literal_block",
        "raw",
    )


def _parents(node: nodes.Node) -> list[nodes.Element]:
    chain: list[nodes.Element] = []
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.section):
        chain.append(parent)
        parent = parent.parent
    return chain


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    env: Any = app.env
    if not hasattr(env, "pb_snippets"):
        env.pb_snippets = {}
    env.pb_snippets[env.docname] = _section_texts(doctree)


def on_purge(app: Sphinx, env: Any, docname: str) -> None:
    getattr(env, "pb_snippets", {}).pop(docname, None)


def on_merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    if not hasattr(env, "pb_snippets"):
        env.pb_snippets = {}
    for name in docnames:
        if name in getattr(other, "pb_snippets", {}):
            env.pb_snippets[name] = other.pb_snippets[name]


def on_build_finished(app: Sphinx, error: Exception | None) -> None:
    if error is not None or app.builder.format != "html":
        return

    def write() -> None:
        metadata = app.env.metadata
        snippets = getattr(app.env, "pb_snippets", {}).items()
        data = {k: v for k, v in sorted(snippets) if "nosearch" not in metadata.get(k, {})}
        text = "window.pbSearchPages = " + json.dumps(data, ensure_ascii=False) + ";\n"
        target = Path(app.outdir) / "_static" / SEARCH_DATA
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    if not later(write):  # the search's, written once the edited page is out under serve
        write()


def on_page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if pagename == "search":
        # This page's alone: added through Sphinx (``app.add_js_file``), they would stay in
        # its lists, and every page a later build of the process writes (``polybook
        # serve``'s) would load them too.
        shared = context["script_files"]  # the builder's own list
        count = len(shared)
        builder: Any = app.builder
        builder.add_js_file(SEARCH_DATA)
        builder.add_js_file("polybook-search.js")
        added = shared[count:]
        del shared[count:]
        context["script_files"] = [*shared, *added]


def setup(app: Sphinx) -> None:
    app.add_config_value("pb_links", {}, "html")
    app.add_config_value("pb_held", [], "html")  # the other outputs the site holds
    app.add_config_value("pb_code_pages", None, "html")  # framework -> pages with code
    app.add_config_value("pb_generated", [], "env")
    app.add_node(
        pb_downloads, html=(visit_downloads_html, None), latex=(skip, None), text=(skip, None)
    )
    app.add_node(pb_defined, html=(skip, None), latex=(skip, None), text=(skip, None))
    app.add_role("pb-defined", DefinedRole())
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-purge-doc", on_purge)
    app.connect("env-merge-info", on_merge)
    app.connect("build-finished", on_build_finished)
    app.connect("html-page-context", on_page_context)
