"""Cell outputs made inert and clean before they reach the site.

HTML outputs are sanitised (tables and basic formatting stay; scripts, styles, event
handlers, images and frames go), JavaScript outputs are dropped with a located warning, and
the build machine's paths (the framework environments, the book) become short placeholders,
in the rendered pages and in the notebooks the site offers for download alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import nh3

from polybook.diagnostics import Location, Reporter
from polybook.meta import cell_meta
from polybook.nb import copy_notebook
from polybook.render.svg import sanitize_svg

if TYPE_CHECKING:  # the Sphinx extension imports this module: it stays light
    from nbformat import NotebookNode

    from polybook.config import Book

JAVASCRIPT = "application/javascript"
SVG = "image/svg+xml"
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


def path_roots(book: Book) -> list[tuple[str, str]]:
    """(path prefix, placeholder) pairs, longest prefix first, each as given and resolved.
    A framework's environment reads ``$ENVS/<framework>`` wherever it lives (in a folder
    shared by books, its name carries its requirement set's hash)."""
    roots = [(book.envs.path, "$ENVS"), (book.root, "$BOOK")]
    for fw in book.tabs:
        roots += [(env, f"$ENVS/{fw}") for env in book.envs.candidates(fw)]
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
    limit: int = 0,
    whole: str = "",
) -> NotebookNode:
    """A copy of ``nb`` without JavaScript outputs (each a warning), without the roots, with
    SVG outputs made inert (:mod:`polybook.render.svg`) and, with a ``limit``, no more than
    that many characters of text per cell (the note says the whole output is in ``whole``).
    """
    nb = copy_notebook(nb)
    code_cells = (cell for cell in nb.cells if cell.get("cell_type") == "code")
    for number, cell in enumerate(code_cells, start=1):
        where = Location(path, cell_meta(cell).line, framework)
        kept = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if JAVASCRIPT in data:
                message = "a JavaScript output is not shown: the site runs no code from outputs"
                reporter.warn(where, message, "render.javascript")
                del data[JAVASCRIPT]
                if set(data) <= {"text/plain"}:  # only the object's repr is left
                    continue
            if SVG in data and not _inert_svg(data, where, reporter):
                continue
            for holder, key in _texts(out):
                holder[key] = scrub(holder[key], roots)
            kept.append(out)
        cell["outputs"] = kept
        if limit:
            _cap(cell, limit, whole, replace(where, cell=number), reporter)
    return nb


def clean_for_book(
    book: Book,
    limit: int,
    nb: NotebookNode,
    roots: Sequence[tuple[str, str]],
    path: str,
    framework: str,
    reporter: Reporter,
) -> NotebookNode:
    """:func:`clean_notebook` with ``limit``, the book's ``[build] output_limit``, the note of a cut
    output naming the executed notebook that holds it whole."""
    whole = book.layout.executed(path, framework).relative_to(book.root).as_posix()
    return clean_notebook(nb, roots, path, framework, reporter, limit, whole)


def _inert_svg(data: dict[str, Any], where: Location, reporter: Reporter) -> bool:
    """Sanitise ``data``'s SVG; False when nothing of the output is left to show."""
    clean = sanitize_svg(str(data[SVG]))
    if clean is not None:
        data[SVG] = clean
        return True
    reporter.warn(where, "an SVG output that is not well-formed XML is not shown", "render.svg")
    del data[SVG]
    return bool(data)


def _size(out: NotebookNode) -> int:
    """Characters of text an output shows (its longest form)."""
    return max([0, *(len(holder[key]) for holder, key in _texts(out))])


def _cut_text(text: str, room: int) -> str:
    """The first ``room`` characters of ``text``, ended at a line break where one is near."""
    head = text[:room]
    newline = head.rfind("\n")
    return head[: newline + 1] if newline > room // 2 else head


def _shorten(out: NotebookNode, room: int) -> bool:
    """Cut an output's texts to ``room`` characters (an HTML, Markdown or LaTeX form that
    does not fit goes: it cannot be cut safely); False when no text of it is left."""
    if "traceback" in out:
        kept, used = [], 0
        for line in out["traceback"]:
            if used + len(line) > room:
                break
            kept.append(line)
            used += len(line)
        out["traceback"] = kept
    if "text" in out:
        out["text"] = _cut_text(out["text"], room)
    data = out.get("data", {})
    for mime in [m for m in TEXT_MIMES if isinstance(data.get(m), str)]:
        if mime == "text/plain":
            data[mime] = _cut_text(data[mime], room)
        elif len(data[mime]) > room and mime != SVG:
            del data[mime]
    return _size(out) > 0 or any(m not in TEXT_MIMES for m in data)


def _megabytes(characters: int) -> str:
    return f"{characters / 1_000_000:.1f} MB"


def _cap(cell: NotebookNode, limit: int, whole: str, where: Location, reporter: Reporter) -> None:
    """Keep ``limit`` characters of the cell's text outputs, and a note of the rest."""
    total = sum(_size(out) for out in cell.outputs)
    if total <= limit:
        return
    room, kept = limit, []
    for out in cell.outputs:
        size = _size(out)
        if size <= room or _shorten(out, room):
            kept.append(out)
        room = max(0, room - size)
    shown = sum(_size(out) for out in kept)
    cut = f"{_megabytes(total - shown)} of this cell's {_megabytes(total)} of output text"
    place = f"; the whole output is in {whole}" if whole else ""
    note = f"[output cut: {cut} not shown ([build] output_limit = {limit}){place}]\n"
    from polybook.nb import node

    kept.append(node({"output_type": "stream", "name": "stderr", "text": note}))
    cell.outputs = kept
    reporter.warn(where, f"output cut: {cut} not shown{place}", "render.output_cut")
