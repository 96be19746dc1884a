"""A d2l Markdown page as a notebook and back, losslessly.

``{.python .input}`` fences become code cells (their content, ``%%tab`` line included);
the text between them becomes Markdown cells, verbatim. What a cell does not hold — the
blank lines before it, a fence other than ```` ```{.python .input} ```` / ```` ``` ````, the
page's end, BOM and line breaks — is kept in ``metadata["polybook"]`` when it differs from
the usual layout, so that an unchanged notebook writes back the same bytes and an edited
cell changes only its own lines. Outputs are never written to the page.
"""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt
from nbformat import NotebookNode

from polybook.nb import new_code_cell as nb_new_code_cell
from polybook.nb import new_markdown_cell as nb_new_markdown_cell
from polybook.nb import new_notebook
from polybook.source.parse import CODE_INFO

KEY = "polybook"
OPENER = "```{.python .input}"
CLOSER = "```"
BACKTICKS = re.compile(r"^ {0,3}(`{3,})")
_markdown = MarkdownIt("commonmark").disable("inline")


class PageError(ValueError):
    """A page that cannot be shown as a notebook without losing bytes."""


def _newline(text: str) -> str:
    crlf = text.count("\r\n")
    lone_cr, lone_lf = text.count("\r") - crlf, text.count("\n") - crlf
    kinds = [k for k, n in (("\r\n", crlf), ("\r", lone_cr), ("\n", lone_lf)) if n]
    if len(kinds) > 1:
        raise PageError("the page mixes line endings")
    return kinds[0] if kinds else "\n"


def _blank(line: str) -> bool:
    return not line.strip()


def _code_spans(lines: list[str], text: str) -> list[tuple[int, int]]:
    """0-based [start, end) of each top-level code cell fence that writes back exactly."""
    spans = []
    for token in _markdown.parse(text if text.endswith("\n") else text + "\n"):
        if token.type != "fence" or token.level != 0 or token.map is None:
            continue
        start, end = token.map
        if not CODE_INFO.match(token.info.strip()):
            continue
        # Closed, and no indentation taken from its lines: the cell holds them as they are.
        if token.content.split("\n")[:-1] == lines[start + 1 : end - 1]:
            spans.append((start, end))
    return spans


def _cell(kind: str, source: str, number: int, before: list[str], **extra: Any) -> NotebookNode:
    make = nb_new_code_cell if kind == "code" else nb_new_markdown_cell
    cell = make(source, f"cell-{number}")
    meta = dict(extra)
    if before != ([] if number == 0 else [""]):
        meta["before"] = before
    if meta:
        cell.metadata[KEY] = meta
    return cell


def to_notebook(raw: str, kernel: dict[str, str] | None = None) -> NotebookNode:
    """The page ``raw`` as a notebook; raises :class:`PageError` where that would lose bytes."""
    bom = raw.startswith("\ufeff")
    newline = _newline(raw)
    text = raw.removeprefix("\ufeff").replace(newline, "\n")
    lines = text.split("\n")
    cells: list[NotebookNode] = []
    pending: list[str] = []  # blank lines not yet given to a cell

    def prose(chunk: list[str]) -> None:
        nonlocal pending
        lead = 0
        while lead < len(chunk) and _blank(chunk[lead]):
            lead += 1
        tail = len(chunk)
        while tail > lead and _blank(chunk[tail - 1]):
            tail -= 1
        if lead == tail:
            pending += chunk
            return
        body = "\n".join(chunk[lead:tail])
        cells.append(_cell("markdown", body, len(cells), pending + chunk[:lead]))
        pending = chunk[tail:]

    cursor = 0
    for start, end in _code_spans(lines, text):
        prose(lines[cursor:start])
        content = lines[start + 1 : end - 1]
        extra: dict[str, Any] = {}
        if (lines[start], lines[end - 1]) != _fence("\n".join(content)):
            extra["fence"] = [lines[start], lines[end - 1]]
        if not content:
            extra["empty"] = True
        cells.append(_cell("code", "\n".join(content), len(cells), pending, **extra))
        pending = []
        cursor = end
    prose(lines[cursor:])
    nb = new_notebook()
    nb.cells = cells
    page: dict[str, Any] = {}
    if pending != [""]:
        page["end"] = pending
    if newline != "\n":
        page["newline"] = newline
    if bom:
        page["bom"] = True
    nb.metadata[KEY] = page
    nb.metadata["language_info"] = {"name": "python"}
    if kernel:
        nb.metadata["kernelspec"] = kernel
    if to_page(nb) != raw:  # a last guard: never offer what would not write back
        raise PageError("the page does not read back the same as a notebook")
    return nb


def _fence(source: str) -> tuple[str, str]:
    """A fence that no line of ``source`` closes."""
    longest = max(
        (len(m.group(1)) for m in map(BACKTICKS.match, source.split("\n")) if m), default=0
    )
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{OPENER.lstrip('`')}", ticks


def _text(cell: NotebookNode) -> str:
    source = cell.source
    return "".join(source) if isinstance(source, list) else str(source)


def _lines(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(line, str) for line in value)


# What each field of the ``polybook`` metadata holds, as :func:`to_notebook` writes it.
_CELL_FIELDS = {
    "before": _lines,
    "fence": lambda v: _lines(v) and len(v) == 2,
    "empty": lambda v: isinstance(v, bool),
}
_PAGE_FIELDS = {
    "end": _lines,
    "newline": lambda v: v in ("\n", "\r\n", "\r"),
    "bom": lambda v: isinstance(v, bool),
}


def _meta(holder: Any, fields: dict[str, Any], what: str) -> dict[str, Any]:
    """The ``polybook`` metadata of a cell or notebook (``holder``), checked: a notebook
    saved after its metadata was edited by hand writes no page (:class:`PageError`)."""
    meta = holder.get("metadata", {}).get(KEY, {})
    if not isinstance(meta, dict):
        raise PageError(f"{what}: its `{KEY}` metadata is not an object")
    for name, valid in fields.items():
        if name in meta and not valid(meta[name]):
            raise PageError(f"{what}: its `{KEY}` metadata's {name!r} is not as polybook wrote it")
    return meta


def to_page(nb: NotebookNode) -> str:
    """The page text of ``nb``: the inverse of :func:`to_notebook`; outputs are left out."""
    out: list[str] = []
    for number, cell in enumerate(nb.cells, start=1):
        meta = _meta(cell, _CELL_FIELDS, f"cell {number}")
        source = _text(cell)
        if cell.cell_type != "code" and not source.strip():
            continue  # a text cell left empty (a page's text cells never are)
        before = list(meta.get("before", [] if not out else [""]))
        if cell.cell_type == "code":
            opener, closer = meta.get("fence") or _fence(source)
            body = [] if meta.get("empty") and not source else source.split("\n")
            out += [*before, opener, *body, closer]
        else:
            lines = source.split("\n")
            while lines and _blank(lines[-1]):
                lines.pop()
            out += [*before, *lines]
    page = _meta(nb, _PAGE_FIELDS, "the notebook")
    out += page.get("end", [""])
    text = "\n".join(out)
    newline = page.get("newline", "\n")
    text = text.replace("\n", newline) if newline != "\n" else text
    return ("\ufeff" if page.get("bom") else "") + text
