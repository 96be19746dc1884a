"""A LaTeX run's log, read for the author: its first error traced back to the Markdown.

xelatex runs with ``-file-line-error``, so an error reads ``./book.tex:345: message``. The
``.tex`` holds a marker line, ``%PB page.md:42``, before each block
(:mod:`polybook.pdf.sphinx_latex`): the nearest one above line 345 names the author's line.
An error in the preamble comes from the configuration (a font, the logo); one in an
auxiliary file (the table of contents) is found in the ``.tex`` by its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from polybook.diagnostics import Diagnostic, Location

MARKER = "%PB "  # a marker line of the .tex: ``%PB path.md:line``
FILE_LINE_ERROR = re.compile(r"^(?P<file>[^\s:][^:]*\.\w+):(?P<line>\d+): (?P<message>.+)$")
PLAIN_ERROR = re.compile(r"^! (?P<message>.+)$")
CONTEXT = re.compile(r"^l\.(?P<line>\d+) (?P<text>.*)$")
MISSING_GLYPH = re.compile(
    r"^Missing character: There is no (.) \((U\+[0-9A-F]+)\) in font ([^!]*)!"
)
SECTION = re.compile(r"^\\(?:chapter|section|subsection|subsubsection)\*?\{(.*)\}")
MARKER_LINE = re.compile(rf"^{re.escape(MARKER)}(?P<path>.+):(?P<line>\d+)$")
PARAGRAPH = "\\sphinxAtStartPar"  # the line that opens a paragraph in Sphinx's LaTeX
LOG_LINES = 12
GLYPHS_ONE_BY_ONE = 8  # a font lacking more characters is one warning
MIN_NEEDLE = 6  # characters of an error's context searched for in the .tex, at least
ENDS = (
    "Here is how much of TeX's memory you used:",
    "No pages of output.",
)  # lines of the log shown with an error, at most
SUBTYPE = "pdf.latex"


@dataclass(frozen=True)
class LatexError:
    """The first error of a log: where xelatex says it is, and the log's lines about it."""

    file: str
    line: int  # 0 when the log gives none
    message: str
    excerpt: list[str] = field(default_factory=list)
    context: str = ""  # the input just before the error (the ``l.N`` line)


def first_error(log: str) -> LatexError | None:
    """The first error in ``log``, or None."""
    lines = log.splitlines()
    for index, text in enumerate(lines):
        found = FILE_LINE_ERROR.match(text) or PLAIN_ERROR.match(text)
        if not found:
            continue
        excerpt, context, line = [text], "", 0
        for follow in lines[index + 1 : index + LOG_LINES]:
            if FILE_LINE_ERROR.match(follow) or PLAIN_ERROR.match(follow) or follow in ENDS:
                break
            excerpt.append(follow)
            if context:
                break  # the line after ``l.N``: the rest of the input line
            if context_match := CONTEXT.match(follow):
                context, line = context_match.group("text"), int(context_match.group("line"))
        while excerpt and not excerpt[-1].strip():
            excerpt.pop()
        groups = found.groupdict()
        line = int(groups["line"]) if groups.get("line") else line
        return LatexError(groups.get("file") or "", line, groups["message"], excerpt, context)
    return None


def marker_above(tex: list[str], line: int) -> tuple[str, int] | None:
    """The author's (path, line) of the nearest marker at or above ``line`` (1-based).

    In a paragraph the ``.tex`` keeps the source's line breaks: an error on its third line
    is on the third line of the paragraph's source.
    """
    for index in range(min(line, len(tex)) - 1, -1, -1):
        if found := MARKER_LINE.match(tex[index]):
            path, start = found.group("path"), int(found.group("line"))
            opening = index + 1 if index + 1 < len(tex) and tex[index + 1].strip() else index + 2
            text = tex[opening + 1 : line]  # the paragraph's lines up to the error's
            if opening < len(tex) and tex[opening] == PARAGRAPH and all(t.strip() for t in text):
                return path, start + max(0, len(text) - 1)
            return path, start
    return None


def section_above(tex: list[str], line: int) -> str:
    """The title of the last section that starts above ``line``, or ""."""
    for index in range(min(line, len(tex)) - 1, -1, -1):
        if found := SECTION.match(tex[index].lstrip()):
            return found.group(1)
    return ""


def _tex_line(error: LatexError, tex_name: str, tex: list[str]) -> int:
    """The line of the ``.tex`` the error is at: given, or found by the text before it."""
    if Path(error.file).name == tex_name and error.line:
        return error.line
    words = error.context.removeprefix("...").split()
    for start in range(len(words)):  # the longest end of the text that the .tex holds
        needle = " ".join(words[start:])
        found = next((i + 1 for i, text in enumerate(tex) if needle in text), 0)
        if found or len(needle) < MIN_NEEDLE:
            return found
    return 0


def locate(error: LatexError, tex_path: Path, framework: str) -> tuple[Location, str]:
    """Where an error is for the author, and a note on how it was found ("" when precise)."""
    tex = tex_path.read_text(encoding="utf-8", errors="replace").splitlines()
    line = _tex_line(error, tex_path.name, tex)
    if not line:
        return Location(tex_path.name, 0, framework), ""
    begin = next((i + 1 for i, t in enumerate(tex) if t.startswith("\\begin{document}")), 0)
    if line < begin:
        return Location("config.ini", 0, framework), "in the preamble ([pdf] fonts, logo)"
    if place := marker_above(tex, line):
        return Location(place[0], place[1], framework), ""
    section = section_above(tex, line)
    return Location(tex_path.name, line, framework), f"in section “{section}”" if section else ""


def latex_diagnostic(log: str, tex_path: Path, framework: str, fallback: str) -> Diagnostic:
    """The located error of a failed run; ``fallback`` (the tool's own output) is what is
    shown when the log names no error."""
    error = first_error(log)
    if error is None:
        text = fallback.strip() or "no log was written"
        return Diagnostic(
            Location(tex_path.name, 0, framework), f"LaTeX failed: {text}", SUBTYPE, "error"
        )
    where, note = locate(error, tex_path, framework)
    at = f"{Path(error.file).name}:{error.line}" if error.line else tex_path.name
    head = f"LaTeX error {note + ' ' if note else ''}({at}): {error.message}"
    body = "\n".join("    " + line for line in error.excerpt[1:])
    return Diagnostic(where, f"{head}\n{body}" if body else head, SUBTYPE, "error")


def missing_glyphs(log: str, tex_path: Path, framework: str) -> list[Diagnostic]:
    """A warning per character a font lacked (xelatex leaves it out), at its first use; a
    font that lacks more than a few (a script it does not cover) is one warning."""
    seen: dict[str, tuple[str, str]] = {}
    for text in log.splitlines():
        if found := MISSING_GLYPH.match(text):
            seen.setdefault(found.group(1), (found.group(2), found.group(3).strip()))
    if not seen:
        return []
    tex = tex_path.read_text(encoding="utf-8", errors="replace").splitlines()
    by_font: dict[str, list[str]] = {}
    for char, (_, font) in seen.items():
        by_font.setdefault(font, []).append(char)
    found_diags = []
    for font, chars in by_font.items():
        shown = chars if len(chars) <= GLYPHS_ONE_BY_ONE else chars[:1]
        for char in shown:
            line = next((i + 1 for i, t in enumerate(tex) if char in t), 0)
            place = marker_above(tex, line) if line else None
            where = Location(place[0], place[1], framework) if place else Location(tex_path.name)
            glyph, them = f"{char} ({seen[char][0]})", "it"
            if len(shown) < len(chars):
                sample = " ".join(chars[1:GLYPHS_ONE_BY_ONE])
                glyph, them = f"{len(chars)} characters: {glyph} here, {sample} …", "them"
            message = f"the font {font} has no glyph for {glyph}: the PDF leaves {them} out"
            found_diags.append(Diagnostic(where, message, "pdf.glyph"))
    return found_diags
