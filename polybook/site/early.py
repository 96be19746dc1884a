"""What a page shows before its scripts have run, so that nothing moves once they have:
the framework switcher written into the page (its place kept from the first paint on), and
a script in the head that reads the reader's framework (``?tab=``, else the stored one)
before the page's body is read and shows that framework's blocks with a style of its own
(``html[data-pb-early]``), which polybook-tabs.js takes away when it applies the choice."""

from __future__ import annotations

import html
import json
from typing import Any

from docutils import nodes
from markupsafe import Markup
from sphinx.application import Sphinx

from polybook.render.messages import message
from polybook.render.sphinx.core_ext import display_name, pb_panel, pb_tabset
from polybook.site.reader import pb_downloads

# The reader's framework, as polybook-tabs.js will choose it, and the style that shows it.
EARLY_SCRIPT = (  # kept short: every page carries it
    "(function(){var n=NAMES,l=LABELS,s=null,a=null,f=true,"
    "k=function(v){return String(v).toLowerCase().replace(/[^a-z0-9]/g,'')},"
    "r=function(v){for(var i=0;v&&i<n.length;i++)if(k(v)==k(n[i])||k(v)==k(l[i]))return n[i];"
    "return null};"
    "try{s=r(localStorage.getItem('polybook.tab'))}catch(e){}"
    "try{a=r(new URLSearchParams(location.search).get('tab'))}catch(e){}"
    "try{var t=performance.getEntriesByType('navigation')[0].type;"
    "f=t!='back_forward'&&t!='reload'}catch(e){}"
    "var c=a&&(f||!s)?a:s||a;if(!c||c==n[0])return;"
    "var o='[data-pb-tab=\"'+c+'\"]',p='html[data-pb-early] ',x=' .pb-panel'+o,"
    "d='{display:none!important}',y=document.createElement('style');y.id='pb-early-style';"
    "y.textContent=p+'.pb-tabset:not(:has(>'+x+'))'+d+p+'.pb-tabset[hidden]:has(>'+x+')"
    "{display:flex!important}'+p+'.pb-tabset>.pb-panel:not('+o+')'+d+p+'.pb-tabset>'+x+"
    "'[hidden]{display:block!important}'+p+'[data-pb-follow]:not([data-pb-follow=\"'+c+"
    "'\"])'+d+p+'[data-pb-follow=\"'+c+'\"][hidden]{display:inline-flex!important}';"
    "document.head.appendChild(y);document.documentElement.setAttribute('data-pb-early',c)})();"
)


def early_script(tabs: list[str], labels: list[str]) -> str:
    """The head's script for a book of these frameworks (the first the default)."""

    def listed(names: list[str]) -> str:
        return json.dumps(names, separators=(",", ":"))

    return EARLY_SCRIPT.replace("NAMES", listed(tabs)).replace("LABELS", listed(labels))


def switcher(tabs: list[str], labels: list[str]) -> str:
    """The page's framework switcher (polybook-switcher.js's markup), the default chosen."""
    if len(tabs) < 2:
        return ""
    buttons = "".join(
        f'<button type="button" class="pb-switcher-choice" data-pb-choose="{html.escape(tab)}"'
        f' aria-pressed="{"true" if i == 0 else "false"}">{html.escape(label)}</button>'
        for i, (tab, label) in enumerate(zip(tabs, labels, strict=True))
    )
    return (
        '<nav class="pb-switcher" aria-label="Framework">'
        '<span class="pb-switcher-label" aria-hidden="true">Framework</span>'
        f"{buttons}</nav>"
    )


def compare_control(lang: str) -> str:
    """The page's compare switch (polybook-compare-controls.js's markup), off; its lists,
    hidden until it is on, are filled by the script."""

    def pick(key: str, side: str) -> str:
        return (
            f'<label class="pb-pick">{html.escape(message(lang, key))} '
            f'<select data-pb-side="{side}"></select></label>'
        )

    group = html.escape(message(lang, "compare_group"), quote=True)
    return (
        f'<div class="pb-compare-page" role="group" aria-label="{group}">'
        '<button class="pb-compare-all" type="button" aria-pressed="false">'
        '<span class="pb-compare-icon" aria-hidden="true">\u21c6</span>'
        f"{html.escape(message(lang, 'compare_page'))}</button>"
        f'<span class="pb-pair" hidden>{pick("compare_show", "1")}'
        f"{pick('compare_beside', '2')}</span></div>"
    )


def _add_compare_control(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """A page with a block to compare gets the switch after its links (else its title)."""
    if app.builder.format != "html" or len(app.config.pb_tabs) < 2:
        return
    comparable = any(
        len([c for c in tabset.children if isinstance(c, pb_panel)]) > 1
        for tabset in doctree.findall(pb_tabset)
    )
    section = next(iter(doctree.findall(nodes.section)), None)
    if not comparable or section is None or not section.children:
        return
    markup = compare_control(str(app.config.language))
    links = next(iter(section.findall(pb_downloads)), None)
    at = section.index(links) + 1 if links is not None and links.parent is section else 1
    section.insert(at, nodes.raw("", markup, format="html"))


def _labels(app: Sphinx) -> list[str]:
    return [display_name(app.config, tab) for tab in app.config.pb_tabs]


def _add_switcher(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    context["pb_switcher"] = Markup(switcher(list(app.config.pb_tabs), _labels(app)))


def _add_script(app: Sphinx) -> None:
    if app.builder.format == "html" and len(app.config.pb_tabs) > 1:
        script = early_script(list(app.config.pb_tabs), _labels(app))
        app.add_js_file(None, body=script, priority=300)  # before the others: it is short


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", _add_script)
    app.connect("html-page-context", _add_switcher)
    app.connect("doctree-resolved", _add_compare_control)
