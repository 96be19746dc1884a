"""Cell outputs made inert and clean before they reach the site.

HTML outputs are sanitised (tables and basic formatting stay; scripts, styles, event
handlers, images and frames go), JavaScript outputs are dropped with a located warning, and
the build machine's paths (the framework environments, the book) become short placeholders,
in the rendered pages and in the notebooks the site offers for download alike.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import nh3

from polybook.diagnostics import Location, Reporter
from polybook.meta import cell_meta

if TYPE_CHECKING:  # the Sphinx extension imports this module: it stays light
    from nbformat import NotebookNode

    from polybook.config import BookConfig

JAVASCRIPT = "application/javascript"
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex", "image/svg+xml")
# What an HTML output may keep: no script, style, image, frame or form; no id or style.
HTML_TAGS = {
    *("a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd"),
    *("del", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "ins"),
    *("kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong"),
    *("sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul"),
}
HTML_ATTRIBUTES = {
    "*": {"class", "title", "align"},
    "a": {"href"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "table": {"border"},
    "col": {"span"},
    "colgroup": {"span"},
    "ol": {"start"},
}


def sanitize_html(text: str) -> str:
    """``text`` with only inert markup left (links open elsewhere, without a referrer)."""
    return nh3.clean(
        text,
        tags=HTML_TAGS,
        attributes=HTML_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
    )


def path_roots(config: BookConfig) -> list[tuple[str, str]]:
    """(path prefix, placeholder) pairs, longest prefix first, each as given and resolved.
    A framework's environment reads ``$ENVS/<framework>`` wherever it lives (in a folder
    shared by books, its name carries its requirement set's hash)."""
    roots = [(config.envs.path, "$ENVS"), (config.root, "$BOOK")]
    for fw in config.tabs:
        roots += [(env, f"$ENVS/{fw}") for env in config.envs.candidates(fw)]
    pairs: set[tuple[str, str]] = set()
    for path, placeholder in roots:
        for variant in (path, path.resolve()):
            if str(variant) not in ("", "/"):
                pairs.add((str(variant), placeholder))
    return sorted(pairs, key=lambda pair: -len(pair[0]))


def scrub(text: str, roots: Sequence[tuple[str, str]]) -> str:
    """``text`` with each root replaced by its placeholder."""
    for prefix, placeholder in roots:
        if prefix in text:
            text = text.replace(prefix, placeholder)
    return text


def _texts(out: NotebookNode) -> Iterator[tuple[Any, int | str]]:
    """(container, key) of each text of an output."""
    if "text" in out:
        yield out, "text"
    for index in range(len(out.get("traceback", []))):
        yield out["traceback"], index
    data = out.get("data", {})
    for mime in TEXT_MIMES:
        if isinstance(data.get(mime), str):
            yield data, mime


def clean_notebook(
    nb: NotebookNode,
    roots: Sequence[tuple[str, str]],
    path: str,
    framework: str,
    reporter: Reporter,
) -> NotebookNode:
    """A copy of ``nb`` without JavaScript outputs (each a warning) and without the roots."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if JAVASCRIPT in data:
                where = Location(path, cell_meta(cell).line, framework)
                message = "a JavaScript output is not shown: the site runs no code from outputs"
                reporter.warn(where, message, "render.javascript")
                del data[JAVASCRIPT]
                if set(data) <= {"text/plain"}:  # only the object's repr is left
                    continue
            for holder, key in _texts(out):
                holder[key] = scrub(holder[key], roots)
            kept.append(out)
        cell["outputs"] = kept
    return nb
