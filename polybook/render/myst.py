"""d2l prose -> MyST Markdown, line by line, remembering each output line's source line.

Beside inline roles: figures, headings and tables with ``:label:``, equations with
``:eqlabel:``, and ```` ```eval_rst ```` blocks, which stay reStructuredText.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from polybook.diagnostics import Location, Reporter
from polybook.memo import memoised
from polybook.render.footnotes import undefined_footnotes_as_text
from polybook.render.pandoc_divs import UNNUMBERED_ATTRS, div_openers
from polybook.render.rst_files import PageFiles, rst_lines
from polybook.source.scan import CAPTION, LABEL, ROLE, TRAILING_EQLABEL

WIDTH = re.compile(r"^:width:`([^`]+)`\s*$")
FIGURE = re.compile(r"^!\[(?P<caption>.*)\]\((?P<src>[^)\s]+)\)(?:\{(?P<attrs>[^{}]*)\})?\s*$")
ATTR_WIDTH = re.compile(r"(?:^|\s)width=(\S+)")  # pandoc's attribute: ![](x.svg){width=86%}
SPLIT_KEY = re.compile(r"[\s{}]+")  # what no bibtex key holds
CITATION = re.compile(r"\s*:(cite|citet|citep):(``?)[^`]+\2")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
MYST_ROLE = {"numref": "numref", "ref": "ref", "eqref": "eq"}
# A table's caption, pandoc's way as d2lbook reads it: a paragraph before the table that
# starts with ":" (not a mark such as ":label:`x`") or "Table:".
EVAL_RST = "eval_rst"
NO_ALT = (
    "the figure {src} has no caption, which is its text for readers who cannot see it:"
    " write one between the brackets, ![Caption](…)"
)
_markdown = MarkdownIt("commonmark").enable("table").disable("inline")


@dataclass
class Lines:
    """Generated lines, each with the source line it came from (for located warnings)."""

    text: list[str] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)

    def add(self, text: str, line: int) -> None:
        for part in text.split("\n"):
            self.text.append(part)
            self.origin.append(line)

    def extend(self, other: Lines) -> None:
        self.text.extend(other.text)
        self.origin.extend(other.origin)


def inline(text: str, where: Location, reporter: Reporter) -> str:
    """Rewrite d2l's inline roles for MyST (slide marks are read out by the parser)."""

    def role(match: re.Match[str]) -> str:
        name, target = match.group(1), match.group(3)
        if name in MYST_ROLE:
            return f"{{{MYST_ROLE[name]}}}`{target}`"
        keys = [k.strip() for k in target.split(",")]  # linked by sphinxcontrib-bibtex
        for at, key in enumerate(keys):
            if SPLIT_KEY.search(key):  # d2l-pt's `Van- Gool`: bibtex cannot read it as one key
                keys[at] = SPLIT_KEY.sub("", key)
                message = f":{name}: key {key!r} holds spaces or braces: read as {keys[at]!r}"
                reporter.warn(where, message, "cite.key")
        if not all(keys):
            reporter.warn(where, f":{name}:`{target}` names an empty key: left out", "cite.key")
            keys = [k for k in keys if k]
        return f"{{cite:{'t' if name == 'citet' else 'p'}}}`{','.join(keys)}`" if keys else ""

    return ROLE.sub(role, text)


def plain_text(caption: str) -> str:
    """A caption as alt text: what a reader hears, without markup, roles or citations."""
    text = CITATION.sub("", caption)
    text = ROLE.sub(lambda match: match.group(3), text)
    text = LINK.sub(r"\1", text)
    text = re.sub(r"[*`$\\]", "", text)
    return " ".join(text.split()).rstrip(" ,;")


def _figure(match: re.Match[str], label: str, width: str, alt: str) -> list[str]:
    head = [f"```{{figure}} {match.group('src')}"]
    if alt:
        head.append(f":alt: {alt}")
    if label:
        head.append(f":name: {label}")
    if width:
        head.append(f":width: {width}")
    caption = match.group("caption")
    # No caption: no content (an empty one is a caption that docutils cannot parse).
    return [*head, *(["", caption] if caption.strip() else []), "```"]


def _figure_lines(
    figure: re.Match[str], marks: tuple[str, str], where: Location, reporter: Reporter, out: Lines
) -> None:
    """A figure with its ``:label:`` and ``:width:`` (``marks``) as a MyST figure, its caption
    also its alt text."""
    caption = inline(figure.group("caption"), where, reporter)
    fixed = FIGURE.match(f"![{caption}]({figure.group('src')})")
    alt = plain_text(figure.group("caption"))
    if not marks[1] and (width := ATTR_WIDTH.search(figure.group("attrs") or "")):
        marks = (marks[0], width.group(1))
    if not alt:
        reporter.warn(where, NO_ALT.format(src=figure.group("src")), "render.alt")
    if fixed:
        out.add("\n".join(_figure(fixed, *marks, alt)), where.line)


@dataclass(frozen=True)
class _Table:
    """A top-level table with a caption or a label; lines are 0-based in the block."""

    rows: tuple[int, int]  # [start, end)
    label: str
    caption: str
    drop: frozenset[int]  # the caption's and the label's lines


@dataclass
class _Scan:
    """What CommonMark (with tables) makes of a prose block."""

    literal: set[int] = field(default_factory=set)  # lines inside code
    eval_rst: dict[int, int] = field(default_factory=dict)  # ```eval_rst fences: [start, end)
    tables: dict[int, _Table] = field(default_factory=dict)  # by first row
    divs: dict[int, list[str]] = field(default_factory=dict)  # Pandoc div openers, as MyST's


def _scan(raw: list[str]) -> _Scan:
    """Code lines (a fence closes only at as many or more of its own character), the
    ``eval_rst`` fences, and tables that carry a caption or a ``:label:`` (not to be
    changed: kept for the next rebuild)."""
    return _scan_text("\n".join(raw))


# What a block must hold for CommonMark to read code or a table in it: a fence, a pipe, or
# an indentation of four columns (spaces or a tab, inside a list or a quote too).
BLOCK_MARKS = ("```", "~~~", "|", "\t", "    ")


@memoised(8192)  # a rebuild scans again the blocks no edit changed
def _scan_text(text: str) -> _Scan:
    raw = text.split("\n")
    scan = _Scan()
    marked = any(mark in text for mark in BLOCK_MARKS)  # (most prose: no parse)
    tokens = _markdown.parse(text if text.endswith("\n") else text + "\n") if marked else []
    for index, token in enumerate(tokens):
        if token.type in ("fence", "code_block") and token.map:
            scan.literal.update(range(*token.map))
            if token.type == "fence" and token.info.strip() == EVAL_RST:
                scan.eval_rst[token.map[0]] = token.map[1]
        elif token.type == "table_open" and token.level == 0 and token.map:
            table = _table(raw, tokens[:index], token.map)
            if table:
                scan.tables[table.rows[0]] = table
    if ":::" in text:
        scan.divs = div_openers(text)
    return scan


def _table(raw: list[str], before: list[Token], span: list[int]) -> _Table | None:
    """The label (on the line after the last row, or after the caption) and the caption
    (the paragraph just before) of the table at ``span``."""
    start, end = span
    label, drop = "", set()
    # GFM reads the lines after the rows, up to a blank line, as more rows: a label there
    # ends the table, and what follows it is prose again.
    for number in range(start + 2, min(end + 1, len(raw))):
        if name := _marked("label", raw[number].strip()):
            label, end = name, number
            drop.add(number)
            break
    caption = ""
    closed = len(before) >= 3 and before[-1].type == "paragraph_close"
    previous = before[-3] if closed else None
    if previous and previous.type == "paragraph_open" and previous.level == 0 and previous.map:
        first, last = previous.map
        head = CAPTION.match(raw[first].strip())
        if head and not label and (name := _marked("label", raw[last - 1].strip())):
            label, last = name, last - 1  # `:Caption` then `:label:` (d2l's way)
            drop.add(last)
        if head and first < last:
            caption = " ".join([head.group(1), *(t.strip() for t in raw[first + 1 : last])])
            drop.update(range(first, last))
    if not label and not caption:
        return None
    return _Table((start, end), label, caption.strip(), frozenset(drop))


def _table_lines(
    table: _Table, raw: list[str], first_line: int, where: Location, reporter: Reporter
) -> Lines:
    """A MyST ``{table}`` directive: numbered when it has a caption and a name. Its fence is
    of colons: a caption may hold roles, whose backticks a backtick fence's line may not."""
    out = Lines()
    rows = raw[table.rows[0] : table.rows[1]]
    colons = max([2, *(len(run) for row in rows for run in re.findall(r"^\s*(:+)", row))]) + 1
    fence = ":" * colons
    line = first_line + table.rows[0]
    out.add(f"{fence}{{table}} {inline(table.caption, where, reporter)}".rstrip(), line)
    if table.label:
        out.add(f":name: {table.label}", line)
        if not table.caption:
            reporter.warn(
                where,
                f":label:`{table.label}` names a table without a caption, which Sphinx does not"
                " number: put the caption on a line before the table, as `: Caption`",
                "label",
            )
    out.add("", line)
    for offset, row in enumerate(rows):
        out.add(inline(row, where, reporter), line + offset)
    out.add(fence, first_line + table.rows[1] - 1)
    return out


def prose_to_myst(
    text: str,
    first_line: int,
    path: str,
    reporter: Reporter,
    files: PageFiles | None = None,
    footnotes: Collection[str] = (),
    unnumbered: Collection[int] = (),
) -> Lines:
    """Convert one prose block; ``first_line`` is the source line of its first line.

    Code is copied as it is: roles inside an example stay literal. ``files`` collects what
    the block's ``raw`` directives read (see :mod:`polybook.render.rst_files`); ``footnotes``
    are the labels the page defines (:func:`footnote_labels`); ``unnumbered`` the source lines
    of headings that take no number.
    """
    raw = text.split("\n")
    scan = _scan(raw)
    drop = {n for table in scan.tables.values() for n in table.drop}
    out = Lines()
    index = 0
    in_math = False  # inside a display equation opened by a line starting with ``$$``
    while index < len(raw):
        offset = index
        line, number = raw[offset], first_line + offset
        where = Location(path, number)
        stripped = line.strip()
        index += 1
        if offset not in scan.literal and (in_math or stripped.startswith("$$")):
            if not in_math:
                _display_math_apart(out)
            in_math = in_math != (stripped.count("$$") % 2 == 1)
        if offset in scan.eval_rst:  # reStructuredText, as MyST reads it
            index = scan.eval_rst[offset]
            _eval_rst(raw[offset:index], number, path, reporter, files, out)
            continue
        if offset in scan.literal:
            out.add(line, number)
            continue
        if offset in drop:
            continue
        if opener := scan.divs.get(offset):
            for made in opener:
                out.add(made, number)
            continue
        if table := scan.tables.get(offset):
            out.extend(_table_lines(table, raw, first_line, where, reporter))
            index = table.rows[1]
            continue
        if stripped.startswith("![") and (figure := _figure_at(raw, offset, scan.literal)):
            match, index = figure
            label, width, index = _figure_marks(raw, index)
            _figure_lines(match, (label, width), where, reporter, out)
            continue
        if heading_label := _marked("label", stripped):
            _attach_label(out, heading_label, where, reporter)
            continue
        if eqlabel := _marked("eqlabel", stripped):
            _attach_eqlabel(out, eqlabel, where, reporter)
            continue
        if trailing := TRAILING_EQLABEL.match(line):  # the label on the math's own line
            out.add(inline(trailing.group("math"), where, reporter), number)
            _attach_eqlabel(out, trailing.group("label"), where, reporter)
            continue
        _unnumbered_attrs(out, number, stripped, unnumbered)
        out.add(inline(undefined_footnotes_as_text(line, footnotes), where, reporter), number)
    return out


def _unnumbered_attrs(out: Lines, number: int, line: str, unnumbered: Collection[int]) -> None:
    """Before a heading that takes no number, MyST's block attributes: its section's class."""
    if number in unnumbered and line.startswith("#"):
        out.add(UNNUMBERED_ATTRS, number)


def _display_math_apart(out: Lines) -> None:
    """A display equation that continues a paragraph (``text:`` then ``$$`` on the next line,
    as d2l books write it) gets a blank line before it: MyST reads it as display math, and a
    ``\\begin{…}`` line inside it cannot end the paragraph and start an amsmath block."""
    if out.text and out.text[-1].strip():
        out.text.append("")
        out.origin.append(out.origin[-1])


def _eval_rst(
    lines: list[str],
    number: int,
    path: str,
    reporter: Reporter,
    files: PageFiles | None,
    out: Lines,
) -> None:
    """An ``eval_rst`` fence as MyST's ``{eval-rst}`` directive, its files read."""
    out.add(lines[0].replace(EVAL_RST, "{eval-rst}", 1), number)
    body = lines[1:-1] if len(lines) > 1 else []
    origins = [number + 1 + k for k in range(len(body))]
    for text, origin in zip(rst_lines(body, origins, files, path, reporter), origins, strict=True):
        out.add(text, origin)
    if len(lines) > 1:
        out.add(lines[-1], number + len(lines) - 1)


def _figure_at(raw: list[str], offset: int, literal: set[int]) -> tuple[re.Match[str], int] | None:
    """The image alone in its paragraph at ``offset`` (its caption may span lines), and the
    index of the line after it."""
    joined: list[str] = []
    for end in range(offset, len(raw)):
        text = raw[end].strip()
        if not text or end in literal:
            return None
        joined.append(text)
        match = FIGURE.match(" ".join(joined))
        if match:
            return match, end + 1
        if text.endswith(")"):  # the image closed, and more follows on its line
            return None
    return None


def _figure_marks(raw: list[str], index: int) -> tuple[str, str, int]:
    """The ``:label:`` and ``:width:`` lines after a figure (blank lines may come between),
    and the index of the line after them."""
    label = width = ""
    while index < len(raw):
        ahead = index
        while ahead < len(raw) and not raw[ahead].strip():
            ahead += 1
        following = raw[ahead].strip() if ahead < len(raw) else ""
        if name := _marked("label", following):
            label = name
        elif m := WIDTH.match(following):
            width = m.group(1)
        else:
            break
        index = ahead + 1
    return label, width, index


def _marked(kind: str, text: str) -> str:
    """The name a ``:label:`` or ``:eqlabel:`` line (``kind``) gives, or ``""``."""
    match = LABEL.match(text)
    return match.group(2) if match and match.group(1) == kind else ""


def _previous(out: Lines) -> int:
    index = len(out.text) - 1
    while index >= 0 and not out.text[index].strip():
        index -= 1
    return index


def _attach_label(out: Lines, label: str, where: Location, reporter: Reporter) -> None:
    index = _previous(out)
    if index < 0 or not out.text[index].lstrip().startswith("#"):
        reporter.warn(where, f":label:`{label}` follows no heading, figure or table", "label")
        return
    if index and out.text[index - 1] == UNNUMBERED_ATTRS:
        index -= 1  # the attributes stay right before their heading
    out.text.insert(index, f"({label})=")
    out.origin.insert(index, where.line)


def _attach_eqlabel(out: Lines, label: str, where: Location, reporter: Reporter) -> None:
    """Name the ``$$`` equation before the label; one that continues a paragraph gets a
    blank line before it, so that MyST reads it as display math it can name."""
    index = _previous(out)
    if index < 0 or not out.text[index].rstrip().endswith("$$"):
        reporter.warn(where, f":eqlabel:`{label}` follows no $$ equation", "label")
        return
    out.text[index] = f"{out.text[index].rstrip()} ({label})"
    closing = out.text[index].lstrip()
    start = index if closing.startswith("$$") and closing.count("$$") > 1 else index - 1
    while start > 0 and not out.text[start].lstrip().startswith("$$"):
        start -= 1
    if start > 0 and out.text[start - 1].strip():
        out.text.insert(start, "")
        out.origin.insert(start, out.origin[start])
