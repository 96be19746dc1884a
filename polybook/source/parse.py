"""Parse stage: d2l Markdown -> :class:`Document`, with source lines kept on every block.

The page's structure comes from markdown-it's tokens and their line maps only. Lines are
split on ``\\n`` alone after CRLF and lone CR become ``\\n`` (as markdown-it does), so that
line numbers agree with markdown-it's and with editors' (a form feed is not a line break).
Where d2lbook and CommonMark differ, the page is read as d2lbook reads it: a code cell ends
only at its own run of backticks, other fences inside it being its content.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block.fence import make_fence_rule
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.token import Token

from polybook.diagnostics import Location, PolybookError
from polybook.source.marks import TAB_LINE
from polybook.source.model import Block, CodeCell, Document, Prose, TabProse, Toc
from polybook.source.page_tabs import keep_page_frameworks, page_frameworks
from polybook.source.prose_split import ProseSplit, is_all, parse_tab_names
from polybook.source.scan import Index, fence

CODE_INFO = re.compile(r"^\{\s*\.python\s+\.input\b[^}]*\}$")
# A cell's id in its info string: `{.python .input #gpus-devices-1}`.
CELL_ID = re.compile(r"(?:^|[\s{])#([A-Za-z][\w-]*)(?=[\s}])")
# Fences that show Markdown (or plain text) may show a cell's opener as an example.
SHOWS_MARKDOWN = frozenset({"", "markdown", "md", "text", "{.markdown}", "{.md}"})
# Pandoc's mark on a heading that takes no number: `## Notes {.unnumbered}`, `{-}`.
UNNUMBERED = re.compile(r"\s*\{(?:-|[^{}]*\.unnumbered\b[^{}]*)\}\s*$")
# Everything after this comment (outside code) is the page's slides, never its text.
SLIDES_SECTION = re.compile(r"^<!--\s*slides\s*-->\s*$")
D2LBOOK_TAB = "%load_ext d2lbook.tab"  # the first cell of d2lbook's pages
# A line that opens a fence: up to three spaces, a run of ``` or ~~~, an info string.
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`]*?)\s*$")
NEWLINES = re.compile(r"\r\n?")

# Block structure is all we need: inline parsing is switched off, and so are setext
# headings (a line of text over `---` or `===`): a paragraph and an hr mark the same lines
# as not being code, and looking for the underline costs a third of the parse.
_markdown = MarkdownIt("commonmark").disable(["inline", "lheading"])
_exact_fence = make_fence_rule(markers=("`",), exact_match=True)


def _cell_fence(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A code cell or toc block as d2lbook reads it: closed only by its own backtick run
    alone on a line, so that other fences inside (longer, shorter, ``~~~``) are content."""
    begin = state.bMarks[start] + state.tShift[start]
    if state.src[begin : begin + 3] != "```" or state.is_code_block(start):
        return False  # most lines
    line = state.src[begin : state.eMarks[start]]
    opener = FENCE_OPEN.match(line)
    if not opener or opener.group(1)[0] != "`" or not _kind(opener.group(2)):
        return False
    return _exact_fence(state, start, end, silent)


_markdown.block.ruler.before(
    "fence", "cell_fence", _cell_fence, {"alt": ["paragraph", "reference", "blockquote", "list"]}
)

Span = tuple[int, int]  # a token's map: 0-based lines [start, end)


def source_text(text: str) -> str:
    """``text`` without a BOM and with ``\\n`` line breaks only."""
    return NEWLINES.sub("\n", text.removeprefix("\ufeff"))


def _content(token: Token) -> list[str]:
    """The lines inside a fence, as markdown-it read them (opener's indentation removed)."""
    return token.content.split("\n")[:-1]


def _kind(info: str) -> str:
    """What a fence with this info string is to polybook: a code cell, a toc or neither."""
    return "code cell" if CODE_INFO.match(info) else "toc block" if info == "toc" else ""


def _check_fence(token: Token, span: Span, lines: list[str], path: str) -> None:
    """A fence left open swallows what follows: a cell's opener, or the rest of the page."""
    start, end = span
    kind = _kind(token.info.strip())
    what = kind or "fence"
    where = Location(path, start + 1)
    inner = range(start + 1, end) if "```" in token.content or "~~~" in token.content else ()
    for number in inner:
        match = FENCE_OPEN.match(lines[number])
        opens = _kind(match.group(2)) if match else ""
        if not match or not opens or (not kind and token.info.strip() in SHOWS_MARKDOWN):
            continue
        run = match.group(1)
        # A cell closes on its own run at a line's start, as d2lbook reads it: another
        # cell's opener there means it was left open. Other runs are its content.
        mine = run == token.markup and lines[number].startswith(run)
        # A longer or other fence may show a cell's opener as an example.
        if mine if kind else run[0] == token.markup[0] and len(run) >= len(token.markup):
            other = "another" if kind else f"a {opens}"
            message = f"{what} opened here is never closed (line {number + 1} opens {other})"
            raise PolybookError(where, message, "parse.fence")
    # markdown-it maps a closed fence to one line more than its content: the closer.
    if len(_content(token)) != end - start - 2:
        raise PolybookError(where, f"{what} opened here is never closed", "parse.fence")


def cell_name(info: str) -> str | None:
    """The id a cell's info string gives it (``#gpus-devices-1``), if any."""
    found = CELL_ID.search(info)
    return found.group(1) if found else None


def _code_cell(
    token: Token,
    start: int,
    path: str,
    tabs: tuple[str, ...],
    dropped: set[str],
    named: set[str],
    untagged: tuple[str, ...],
) -> CodeCell:
    """A code cell; its first line that is not blank may name its frameworks (none: the
    cell is for frameworks the book does not build); those it names (not ``all``) are added
    to ``named``. A cell without a tab line is ``untagged``'s."""
    name = cell_name(token.info.strip())
    body = _content(token)
    first = start + 2
    lead = next((k for k, text in enumerate(body) if text.strip()), 0)
    match = TAB_LINE.match(body[lead]) if body else None
    if match:
        where = Location(path, first + lead)
        names = parse_tab_names(match.group(1), tabs, where, "%%tab", dropped)
        if not is_all(match.group(1)):
            named.update(names)
        return CodeCell(names, "\n".join(body[lead + 1 :]), first + lead + 1, name)
    return CodeCell(untagged, "\n".join(body), first, name)


def _toc(token: Token, start: int) -> Toc:
    options: list[tuple[str, str]] = []
    entries: list[str] = []
    entry_lines: list[int] = []
    for number, raw in enumerate(_content(token), start=start + 2):
        line = raw.strip()
        if line.startswith(":") and line.count(":") >= 2:
            key, _, value = line[1:].partition(":")
            options.append((key.strip(), value.strip()))
        elif line:
            entries.append(line)
            entry_lines.append(number)
    return Toc(tuple(options), tuple(entries), start + 1, tuple(entry_lines))


def parse(text: str, path: str, tabs: tuple[str, ...]) -> Document:
    """Parse one page. ``path`` (relative to the book root) is used in messages."""
    text = source_text(text)
    lines = text.split("\n")
    # A final newline lets a fence left open at the end be told from a closed one.
    tokens = _markdown.parse(text if text.endswith("\n") else text + "\n")
    slides_at = _slides_section(tokens, lines) if "slides" in text else None
    slides = ""
    if slides_at is not None:  # the page is what comes before it
        slides = "\n".join(lines[slides_at + 1 :]).strip("\n")
        text = "\n".join(lines[:slides_at]) + "\n"
        lines = text.split("\n")
        tokens = _markdown.parse(text)
    # Pages whose cells carry ids: a cell without a tab line is every framework's.
    untagged = tabs if _names_cells(tokens) else tabs[:1]
    unnumbered = _drop_heading_marks(tokens, lines) if "{" in text else ()
    prose = ProseSplit(text, lines, tokens, path, tabs, slides_at is not None)
    blocks: list[Block] = []
    d2lbook = False  # a page of d2lbook's (its `%load_ext d2lbook.tab` cell)
    cursor = 0
    for token in tokens:
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        kind = _kind(token.info.strip()) if token.level == 0 else ""
        if token.level == 0:
            _check_fence(token, (start, end), lines, path)
        if not kind:
            prose.fences.append(fence(token, start, end))
            continue
        blocks.extend(prose.blocks(cursor, start))
        if prose.open is not None and kind == "code cell":
            raise PolybookError(
                Location(path, start + 1),
                f"code cell inside the :begin_tab: block opened at line {prose.open[1]}",
                "parse.tab",
            )
        if kind == "code cell":
            cell = _code_cell(token, start, path, tabs, prose.dropped, prose.named, untagged)
            d2lbook = d2lbook or D2LBOOK_TAB in token.content
            if cell.frameworks:
                blocks.append(cell)
        else:
            blocks.append(_toc(token, start))
        cursor = end
    blocks.extend(prose.blocks(cursor, len(lines)))
    if prose.open is not None:
        where = Location(path, prose.open[1])
        raise PolybookError(where, ":begin_tab: opened here is never closed", "parse.tab")

    selected = page_frameworks(tabs, prose.named, d2lbook)
    if selected != tabs:
        blocks = keep_page_frameworks(blocks, selected)
    texts = tuple((b.line, b.text) for b in blocks if isinstance(b, Prose | TabProse))
    index = Index(texts, prose.code, tuple(prose.fences), tuple(prose.marks.values()))
    found = tuple(prose.warnings)
    slides_line = 0 if slides_at is None else slides_at + 1
    dropped = tuple(sorted(prose.dropped))
    return Document(path, tuple(blocks), found, dropped, index, slides, slides_line, unnumbered)


def _drop_heading_marks(tokens: list[Token], lines: list[str]) -> tuple[int, ...]:
    """``lines`` with Pandoc's ``{.unnumbered}`` (``{-}``) left off its headings' lines; the
    1-based lines of those headings."""
    marked: list[int] = []
    for token in tokens:
        if token.type == "heading_open" and token.markup.startswith("#") and token.map:
            number = token.map[0]
            left = UNNUMBERED.sub("", lines[number])
            if left != lines[number]:
                lines[number] = left
                marked.append(number + 1)
    return tuple(marked)


def _slides_section(tokens: list[Token], lines: list[str]) -> int | None:
    """The 0-based line of the page's ``<!-- slides -->`` comment (outside code), if any."""
    for token in tokens:
        if token.type != "html_block" or token.level != 0 or token.map is None:
            continue
        if SLIDES_SECTION.match(lines[token.map[0]].strip()):
            return token.map[0]
    return None


def _names_cells(tokens: list[Token]) -> bool:
    """Whether a code cell of the page carries an id (``{.python .input #name}``)."""
    return any(
        token.type == "fence"
        and token.level == 0
        and _kind(token.info.strip()) == "code cell"
        and cell_name(token.info.strip()) is not None
        for token in tokens
    )
