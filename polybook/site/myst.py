"""d2l prose -> MyST Markdown, line by line, remembering each output line's source line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

from polybook.diagnostics import Location, Reporter

LABEL = re.compile(r"^:label:`([^`]+)`\s*$")
WIDTH = re.compile(r"^:width:`([^`]+)`\s*$")
EQLABEL = re.compile(r"^:eqlabel:`([^`]+)`\s*$")
FIGURE = re.compile(r"^!\[(?P<caption>.*)\]\((?P<src>[^)\s]+)\)\s*$")
ROLE = re.compile(r":(numref|ref|eqref|cite|citet|citep|numref):`([^`]+)`")
SLIDE_KEEP = re.compile(r"\(\*\*(.+?)\*\*\)", re.S)
SLIDE_ONLY = re.compile(r"\(~~(.+?)~~\)", re.S)
MYST_ROLE = {"numref": "numref", "ref": "ref", "eqref": "eq"}
_markdown = MarkdownIt("commonmark").disable("inline")


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
    """Rewrite d2l's inline roles and slide marks for MyST."""
    text = SLIDE_ONLY.sub("", SLIDE_KEEP.sub(r"\1", text))

    def role(match: re.Match[str]) -> str:
        name, target = match.group(1), match.group(2)
        if name in MYST_ROLE:
            return f"{{{MYST_ROLE[name]}}}`{target}`"
        reporter.warn(where, "citations are shown as keys: no bibliography is configured", "cite")
        keys = ", ".join(k.strip() for k in target.split(","))
        return f"[{keys}]"

    return ROLE.sub(role, text)


def _figure(match: re.Match[str], label: str, width: str) -> list[str]:
    head = [f"```{{figure}} {match.group('src')}"]
    if label:
        head.append(f":name: {label}")
    if width:
        head.append(f":width: {width}")
    return [*head, "", match.group("caption"), "```"]


def _literal_lines(text: str) -> set[int]:
    """0-based lines of ``text`` inside code (fenced or indented), as CommonMark reads them.

    A fence opened with N backticks or tildes closes only at N or more of the same.
    """
    tokens = _markdown.parse(text if text.endswith("\n") else text + "\n")
    code = (t.map for t in tokens if t.type in ("fence", "code_block") and t.map)
    return {number for start, end in code for number in range(start, end)}


def prose_to_myst(text: str, first_line: int, path: str, reporter: Reporter) -> Lines:
    """Convert one prose block; ``first_line`` is the source line of its first line.

    Code is copied as it is: roles inside an example stay literal.
    """
    raw = text.split("\n")
    literal = _literal_lines(text)
    out = Lines()
    index = 0
    while index < len(raw):
        line, number = raw[index], first_line + index
        where = Location(path, number)
        stripped = line.strip()
        index += 1
        if number - first_line in literal:
            out.add(line, number)
            continue
        figure = FIGURE.match(stripped)
        if figure:
            label = width = ""
            while index < len(raw):
                following = raw[index].strip()
                if m := LABEL.match(following):
                    label = m.group(1)
                elif m := WIDTH.match(following):
                    width = m.group(1)
                else:
                    break
                index += 1
            caption = inline(figure.group("caption"), where, reporter)
            fixed = FIGURE.match(f"![{caption}]({figure.group('src')})")
            if fixed:
                out.add("\n".join(_figure(fixed, label, width)), number)
            continue
        heading_label = LABEL.match(stripped)
        if heading_label:
            _attach_label(out, heading_label.group(1), where, reporter)
            continue
        eqlabel = EQLABEL.match(stripped)
        if eqlabel:
            _attach_eqlabel(out, eqlabel.group(1), where, reporter)
            continue
        out.add(inline(line, where, reporter), number)
    return out


def _previous(out: Lines) -> int:
    index = len(out.text) - 1
    while index >= 0 and not out.text[index].strip():
        index -= 1
    return index


def _attach_label(out: Lines, label: str, where: Location, reporter: Reporter) -> None:
    index = _previous(out)
    if index < 0 or not out.text[index].lstrip().startswith("#"):
        reporter.warn(where, f":label:`{label}` follows no heading or figure", "label")
        return
    out.text.insert(index, f"({label})=")
    out.origin.insert(index, where.line)


def _attach_eqlabel(out: Lines, label: str, where: Location, reporter: Reporter) -> None:
    index = _previous(out)
    if index < 0 or not out.text[index].rstrip().endswith("$$"):
        reporter.warn(where, f":eqlabel:`{label}` follows no $$ equation", "label")
        return
    out.text[index] = f"{out.text[index].rstrip()} ({label})"
