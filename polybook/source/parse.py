"""Parse stage: d2l Markdown -> :class:`Document`, with source lines kept on every block."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from polybook.diagnostics import Location, PolybookError
from polybook.source.model import Block, CodeCell, Document, Prose, TabProse, Toc

CODE_INFO = re.compile(r"^\{\s*\.python\s+\.input\b[^}]*\}$")
TAB_LINE = re.compile(r"^(?:%%tab|#@tab)\b(.*)$")
BEGIN_TAB = re.compile(r"^:begin_tab:`([^`]*)`$")
END_TAB = ":end_tab:"

# Block structure is all we need: inline parsing is switched off.
_markdown = MarkdownIt("commonmark").disable("inline")


def parse_tab_names(
    spec: str, tabs: tuple[str, ...], where: Location, what: str
) -> tuple[str, ...]:
    """``"pytorch, mxnet"`` or ``"all"`` -> framework names, validated against ``tabs``."""
    names = tuple(n for n in spec.replace(",", " ").split() if n)
    if not names:
        raise PolybookError(where, f"{what} names no framework", "parse.tab")
    if names == ("all",):
        return tabs
    for name in names:
        if name not in tabs:
            raise PolybookError(
                where,
                f"{what} names unknown framework {name!r} (book tabs: {', '.join(tabs)})",
                "parse.tab",
            )
    return tuple(t for t in tabs if t in names)


def _code_cell(token: Token, lines: list[str], path: str, tabs: tuple[str, ...]) -> CodeCell:
    assert token.map is not None  # fences always carry their lines
    start, end = token.map
    closer = lines[end - 1].strip() if end - start >= 2 else ""
    if not (closer.startswith(token.markup) and not closer.strip(token.markup[0])):
        raise PolybookError(Location(path, start + 1), "code cell is never closed", "parse.fence")
    body = lines[start + 1 : end - 1]
    first = start + 2
    match = TAB_LINE.match(body[0].strip()) if body else None
    if match:
        where = Location(path, first)
        names = parse_tab_names(match.group(1), tabs, where, "%%tab")
        return CodeCell(names, "\n".join(body[1:]), first + 1)
    return CodeCell((tabs[0],), "\n".join(body), first)


def _toc(token: Token) -> Toc:
    assert token.map is not None
    options: list[tuple[str, str]] = []
    entries: list[str] = []
    for raw in token.content.splitlines():
        line = raw.strip()
        if line.startswith(":") and line.count(":") >= 2:
            key, _, value = line[1:].partition(":")
            options.append((key.strip(), value.strip()))
        elif line:
            entries.append(line)
    return Toc(tuple(options), tuple(entries), token.map[0] + 1)


def _prose_blocks(
    lines: list[str],
    start: int,
    end: int,
    path: str,
    tabs: tuple[str, ...],
    state: dict[str, object],
) -> list[Block]:
    """Split prose lines [start, end) into shared and per-framework blocks."""
    blocks: list[Block] = []
    chunk_start = start
    for number in range(start, end):
        stripped = lines[number].strip()
        begin = BEGIN_TAB.match(stripped)
        if not begin and stripped != END_TAB:
            continue
        where = Location(path, number + 1)
        text = "\n".join(lines[chunk_start:number])
        open_tab = state.get("open")
        if begin:
            if open_tab is not None:
                raise PolybookError(where, ":begin_tab: inside another :begin_tab:", "parse.tab")
            if text.strip():
                blocks.append(Prose(text, chunk_start + 1))
            state["open"] = (
                parse_tab_names(begin.group(1), tabs, where, ":begin_tab:"),
                number + 1,
            )
        else:
            if not isinstance(open_tab, tuple):
                raise PolybookError(where, ":end_tab: without :begin_tab:", "parse.tab")
            blocks.append(TabProse(open_tab[0], text, chunk_start + 1))
            state["open"] = None
        chunk_start = number + 1
    text = "\n".join(lines[chunk_start:end])
    if text.strip():
        open_tab = state.get("open")
        if isinstance(open_tab, tuple):
            blocks.append(TabProse(open_tab[0], text, chunk_start + 1))
        else:
            blocks.append(Prose(text, chunk_start + 1))
    return blocks


def parse(text: str, path: str, tabs: tuple[str, ...]) -> Document:
    """Parse one page. ``path`` (relative to the book root) is used in messages."""
    lines = text.splitlines()
    blocks: list[Block] = []
    state: dict[str, object] = {"open": None}
    cursor = 0
    for token in _markdown.parse(text):
        if token.type != "fence" or token.level != 0 or token.map is None:
            continue
        info = token.info.strip()
        is_code = bool(CODE_INFO.match(info))
        if not is_code and info != "toc":
            continue
        start, end = token.map
        blocks.extend(_prose_blocks(lines, cursor, start, path, tabs, state))
        open_tab = state.get("open")
        if isinstance(open_tab, tuple) and is_code:
            raise PolybookError(
                Location(path, start + 1),
                f"code cell inside the :begin_tab: block opened at line {open_tab[1]}",
                "parse.tab",
            )
        blocks.append(_code_cell(token, lines, path, tabs) if is_code else _toc(token))
        cursor = end
    blocks.extend(_prose_blocks(lines, cursor, len(lines), path, tabs, state))
    open_tab = state.get("open")
    if isinstance(open_tab, tuple):
        raise PolybookError(Location(path, open_tab[1]), ":begin_tab: is never closed", "parse.tab")
    return Document(path, _merge_tab_runs(blocks))


def _merge_tab_runs(blocks: list[Block]) -> tuple[Block, ...]:
    """Drop whitespace-only shared prose between tab blocks so that they form one group."""
    kept: list[Block] = []
    for index, block in enumerate(blocks):
        between_tabs = (
            isinstance(block, Prose) and not block.text.strip() and 0 < index < len(blocks) - 1
        )
        if not between_tabs:
            kept.append(block)
    return tuple(kept)
