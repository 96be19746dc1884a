"""The Sphinx extension every output of the book loads: tab sets and code cells as nodes
(each framework's panel), their HTML, and a place in any other builder's flow; located
warnings; citations; links from saved code to the library's API entries."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any, ClassVar, cast

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from polybook.render import library_stubs
from polybook.render.messages import localized_note
from polybook.render.names import CELLS_SUFFIX
from polybook.render.outputs import sanitize_html
from polybook.render.sphinx import (
    cite,
    doctrees,
    failures,
    files,
    html_writer,
    kept_numbers,
    library_links,
    listing,
    numref_targets,
    quotes,
    small_builds,
    stable_config,
    tree_walk,
    unnumbered,
    unresolved,
    walks,
)
from polybook.render.sphinx import log as sphinx_log
from polybook.render.sphinx.deferred import KEPT_WARMING


class pb_tabset(nodes.General, nodes.Element):
    """A set of per-framework panels."""


class pb_panel(nodes.General, nodes.Element):
    """One framework's content inside a :class:`pb_tabset`."""


class pb_badge(nodes.container):
    """A one-line notice where a cell's outputs would be (the cell was not run here)."""


def display_name(config: Any, name: str) -> str:
    """A tab's display name, as the book declares it (else the tab's own name)."""
    return str(config.pb_tab_names.get(name, name))


def _tabbed(self: Any) -> bool:
    """Whether tab sets show as tabs: not in an output whose files hold one framework each
    (``Output.per_framework``: its settings say ``pb_tabbed = False``)."""
    return bool(self.builder.config.pb_tabbed)


def _tab_button(number: int, tab: str, label: str, first: bool) -> str:
    """A tab of tab set ``number``: it controls its panel; the first is selected and is
    the one in the tab order (the script moves both with the reader's choice)."""
    name = html.escape(tab)
    return (
        f'<button type="button" class="pb-tab{" is-active" if first else ""}" role="tab" '
        f'id="pb-tab-{number}-{name}" aria-controls="pb-panel-{number}-{name}" '
        f'data-pb-tab="{name}" aria-selected="{"true" if first else "false"}" '
        f'tabindex="{0 if first else -1}">{html.escape(label)}</button>'
    )


def visit_tabset_html(self: Any, node: pb_tabset) -> None:
    """The tab set and its tab bar, as the WAI-ARIA tabs pattern has them; tab sets are
    numbered in the page for their ids."""
    kind = html.escape(node["kind"])
    # The ids of the cells it holds (their anchors), before it: a hidden set is no target.
    self.body.extend(f'<span id="{html.escape(i)}" class="pb-anchor"></span>' for i in node["ids"])
    if not _tabbed(self):
        self.body.append(f'<div class="pb-tabset pb-untabbed" data-pb-kind="{kind}">')
        return
    self.pb_count = number = getattr(self, "pb_count", 0) + 1
    self.pb_open = [*getattr(self, "pb_open", []), number]  # the tab sets being written
    tabs = [child["tab"] for child in node.children if isinstance(child, pb_panel)]
    config = self.builder.config
    buttons = "".join(
        _tab_button(number, t, display_name(config, t), i == 0) for i, t in enumerate(tabs)
    )
    label = "Framework" if node["kind"] == "code" else "Framework of this text"
    # Hidden unless it holds the default framework: what a page shows without its scripts.
    shown = not config.pb_tabs or config.pb_tabs[0] in tabs
    self.body.append(
        f'<div class="pb-tabset" data-pb-kind="{kind}" id="pb-set-{number}"'
        f"{'' if shown else ' hidden'}>"
        f'<div class="pb-tabbar" role="tablist" aria-label="{label}">{buttons}</div>'
    )


def visit_panel_html(self: Any, node: pb_panel) -> None:
    tab = html.escape(node["tab"])
    if not isinstance(node.parent, pb_tabset) or not _tabbed(self):
        self.body.append(f'<div class="pb-panel" data-pb-tab="{tab}">')
        return
    hidden = "" if node.parent.index(node) == 0 else " hidden"
    number = self.pb_open[-1]
    self.body.append(
        f'<div class="pb-panel" role="tabpanel" id="pb-panel-{number}-{tab}" '
        f'aria-labelledby="pb-tab-{number}-{tab}" data-pb-tab="{tab}"{hidden}>'
    )


def depart_div_html(self: Any, node: nodes.Element) -> None:
    self.body.append("</div>")


def depart_tabset_html(self: Any, node: pb_tabset) -> None:
    if _tabbed(self):
        self.pb_open = self.pb_open[:-1]
    self.body.append("</div>")


def visit_badge_html(self: Any, node: pb_badge) -> None:
    """A badge is a note, read as one: "Note:" before its text, for screen readers."""
    self.body.append(self.starttag(node, "div", role="note"))
    self.body.append('<span class="pb-sr-only">Note: </span>')


def visit_badge_latex(self: Any, node: pb_badge) -> None:
    self.visit_container(node)  # its classes' environments (the PDF's preamble has them)


def depart_badge_latex(self: Any, node: pb_badge) -> None:
    self.depart_container(node)


def visit_passthrough(self: Any, node: nodes.Element) -> None:
    """Other builders (text, LaTeX) show the panels one after another."""


def depart_passthrough(self: Any, node: nodes.Element) -> None:
    pass


def _body_offset(directive: SphinxDirective) -> int:
    """The content offset of a directive without options (1 after a blank line, else 0).

    MyST-Parser puts a blank line of its own before a body that opens with a ``:::`` fence
    and counts it, so every line of the body would be one too far: the page's text says.
    """
    offset = int(directive.content_offset)
    if offset != 1 or not directive.content or not directive.content[0].startswith(":::"):
        return offset
    source = str(directive.state.document["source"])
    cache = cast(dict[str, list[str]], directive.env.temp_data.setdefault("pb_lines", {}))
    if source not in cache:
        cache[source] = Path(source).read_text(encoding="utf-8").split("\n")
    lines, after = cache[source], int(directive.lineno)  # the line after the directive's
    return 1 if after < len(lines) and not lines[after].strip() else 0


class TabSetDirective(SphinxDirective):
    """``{pb-tabset} prose``: holds ``{pb-tab} NAME`` directives."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = pb_tabset(kind=self.arguments[0])
        self.set_source_info(node)
        self.state.nested_parse(self.content, _body_offset(self), node)
        return [node]


class TabDirective(SphinxDirective):
    """``{pb-tab} NAME``: one framework's prose."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = pb_panel(tab=self.arguments[0])
        self.set_source_info(node)
        self.state.nested_parse(self.content, _body_offset(self), node)
        return [node]


def image_alt(source: str) -> str:
    """What a cell's picture shows, for readers who do not see it: the cell's first comment,
    else the line of code that drew it (its last)."""
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    comments = [line.lstrip("#").strip() for line in lines if line.startswith("#")]
    said = next((c for c in comments if c and not c.startswith("@")), "")
    if said:
        return said
    code = [line for line in lines if not line.startswith("#")]
    return f"Output of {code[-1][:100]}" if code else "Output of the code above"


def _outputs(outputs: list[dict[str, str]], alt: str = "") -> list[nodes.Node]:
    result: list[nodes.Node] = []
    for out in outputs:
        kind = out["type"]
        if kind == "image":
            box = nodes.container(classes=["pb-output", "pb-image"])
            image = nodes.image(uri=out["uri"], alt=alt or "Output of the code above")
            if "width" in out:  # the width it is shown at (a retina PNG's); height follows
                image["width"] = f"{out['width']}px"
            box += image
        elif kind == "html":
            box = nodes.container(classes=["pb-output", "pb-html"])
            box += nodes.raw("", sanitize_html(out["text"]), format="html")
        else:
            classes = ["pb-output"]
            if kind == "error":
                classes.append("pb-output-error")
            elif out.get("name") == "stderr":
                classes.append("pb-stderr")
            box = nodes.container(classes=classes)
            text = out["text"].rstrip("\n")
            box += nodes.literal_block(text, text, language="none")
        result.append(box)
    return result


def _claim(document: nodes.document, ids: list[str], node: nodes.Element) -> None:
    """Give ``node`` those of ``ids`` that no other element of the page holds."""
    for ident in ids:
        if ident not in document.ids:
            node["ids"].append(ident)
            document.ids[ident] = node


def _cell(data: dict[str, Any], env: Any, owners: list[str]) -> list[nodes.Node]:
    """A cell's code (linked to the API entries of what it saves), notes and outputs."""
    result: list[nodes.Node] = [] if not data.get("anchor") else [nodes.inline()]
    if data["source"]:
        code = nodes.literal_block(data["source"], data["source"], language="python")
        ids, links = library_links.saved_links(env, data["source"], owners)
        code["ids"].extend(ids)
        result += [code, *links]
    if data.get("badge"):
        note = pb_badge(classes=["pb-output", "pb-badge"])
        note += nodes.inline(text=localized_note(env.config.language, data["badge"]))
        result.append(note)
    if data.get("provenance"):
        note = nodes.container(classes=["pb-provenance", *(f"pb-from-{fw}" for fw in owners)])
        note += nodes.paragraph(text=localized_note(env.config.language, data["provenance"]))
        result.append(note)
    result.extend(_outputs(data["outputs"], image_alt(data["source"] or "")))
    return result


def cell_anchors(anchor: str, tabs: list[str], group: bool) -> list[str]:
    """The ids of a cell named ``anchor`` (its ``{.python .input #anchor}``): in a group the
    frameworks share, ``anchor`` and ``anchor-FRAMEWORK`` for each of ``tabs``; in a
    framework's tab, ``anchor-FRAMEWORK`` (its tab set holds ``anchor``)."""
    return [anchor, *(f"{anchor}-{tab}" for tab in tabs)] if group else [f"{anchor}-{tabs[0]}"]


class CellsDirective(SphinxDirective):
    """``{pb-cells} KEY DIGEST``: a group of code cells from the page's cell data."""

    required_arguments = 2
    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"class": directives.class_option}

    def run(self) -> list[nodes.Node]:
        path = Path(self.env.srcdir) / f"{self.env.docname}{CELLS_SUFFIX}"
        cache = cast(dict[str, Any], self.env.temp_data.setdefault("pb_cells", {}))
        if str(path) not in cache:
            cache[str(path)] = json.loads(path.read_text(encoding="utf-8"))
        data = cache[str(path)][self.arguments[0]]
        if data["kind"] == "single":
            box = nodes.container(classes=["pb-cell"])
            self.set_source_info(box)  # the LaTeX writer marks the cell's line
            tabs = list(self.config.pb_tabs)
            for cell in data["cells"]:
                made = _cell(cell, self.env, tabs)
                if cell.get("anchor"):
                    _claim(self.state.document, cell_anchors(cell["anchor"], tabs, True), made[0])
                box.extend(made)
            return [box]
        tabset = pb_tabset(kind="code")
        self.set_source_info(tabset)
        for tab, cells in data["panels"]:
            panel = pb_panel(tab=tab)
            for cell in cells:
                made = _cell(cell, self.env, [tab])
                if cell.get("anchor"):
                    _claim(self.state.document, cell_anchors(cell["anchor"], [tab], False), made[0])
                    _claim(self.state.document, [cell["anchor"]], tabset)
                panel.extend(made)
            tabset += panel
        return [tabset]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("pb_tabs", [], "html")
    app.add_config_value("pb_tab_names", {}, "html")
    app.add_config_value("pb_tabbed", True, "html")  # tab sets show as tabs
    app.add_config_value("pb_diagnostics", "", "", str)  # where located warnings go
    app.add_config_value("pb_import_path", [], "env")  # where autodoc finds the book's library
    app.add_config_value("pb_library_files", {}, "env")  # its library, read from source
    # This process builds one book: its folder goes first, as a conf.py beside it would do.
    sys.path[:0] = [p for p in app.config.pb_import_path if p not in sys.path]
    library_stubs.install(app.config.pb_library_files)
    if app.config.pb_diagnostics:
        sphinx_log.install(app, app.config.pb_diagnostics)
        failures.guard_pages(app)
    doctrees.setup(app)
    numref_targets.setup(app)
    kept_numbers.setup(app)
    small_builds.setup(app)
    library_links.setup(app)
    unresolved.setup(app)
    unnumbered.setup(app)
    files.setup(app)
    stable_config.setup(app)
    quotes.setup(app)
    walks.setup(app)
    tree_walk.install()
    app.add_event(KEPT_WARMING)
    listing.setup(app)
    html_writer.setup_writer(app)
    app.add_config_value("pb_bibliography", False, "env")
    cite.setup(app, app.config.pb_bibliography)
    app.add_node(
        pb_tabset,
        html=(visit_tabset_html, depart_tabset_html),
        latex=(visit_passthrough, depart_passthrough),
        text=(visit_passthrough, depart_passthrough),
    )
    app.add_node(
        pb_panel,
        html=(visit_panel_html, depart_div_html),
        latex=(visit_passthrough, depart_passthrough),
        text=(visit_passthrough, depart_passthrough),
    )
    app.add_node(
        pb_badge,
        html=(visit_badge_html, depart_div_html),
        latex=(visit_badge_latex, depart_badge_latex),
        text=(visit_passthrough, depart_passthrough),
    )
    app.add_directive("pb-tabset", TabSetDirective)
    app.add_directive("pb-tab", TabDirective)
    app.add_directive("pb-cells", CellsDirective)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
