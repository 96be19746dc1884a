"""A code cell's outputs as the comparison reads them: its texts and images in order, the
warnings its standard error holds, its error, and whether it ran."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.meta import cell_meta
from polybook.nb import strip_ansi

RASTER = ("image/png", "image/jpeg", "image/gif", "image/webp")
SVG = "image/svg+xml"
# The representation compared of a rich output, first found first.
PREFERRED = (*RASTER, SVG, "text/plain", "text/html", "text/markdown", "text/latex")
# What warnings.showwarning writes: "<file>:<line>: <Category>: <message>", then the line.
WARNING = re.compile(r"^.*?:\d+: (?P<category>[A-Z]\w*Warning): (?P<message>.*)$")


@dataclass(frozen=True)
class Part:
    """One output: where it went (``stdout``, ``stderr``, ``result``, ``display``, and
    ``error`` or ``warning`` for showing) and what it holds."""

    channel: str
    mime: str
    text: str = ""  # text, an SVG's source
    data: bytes = b""  # a raster image

    @property
    def is_image(self) -> bool:
        return self.mime in RASTER or self.mime == SVG


@dataclass(frozen=True)
class CellOutputs:
    """What a cell printed and showed, its warnings and its error (``""``: none)."""

    parts: tuple[Part, ...] = ()
    warnings: tuple[str, ...] = ()  # ``Category: message``, without the file it came from
    error: str = ""  # ``Name: value``
    traceback: str = ""
    ran: bool = False
    skipped: bool = False  # not run for want of devices

    @property
    def shown(self) -> tuple[Part, ...]:
        """Everything the report shows of the cell, warnings and error included."""
        extra = [Part("warning", "text/plain", w) for w in self.warnings]
        if self.error:
            extra.append(Part("error", "text/plain", self.traceback or self.error))
        return (*self.parts, *extra)


def _text(value: object) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def split_warnings(text: str) -> tuple[tuple[str, ...], str]:
    """The warnings of a standard error's text, and what else it holds."""
    warnings: list[str] = []
    kept: list[str] = []
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        found = WARNING.match(lines[index].rstrip("\n"))
        if found is None:
            kept.append(lines[index])
            index += 1
            continue
        warnings.append(f"{found['category']}: {found['message'].strip()}")
        index += 1
        if index < len(lines) and lines[index][:1].isspace():
            index += 1  # the line of code the warning shows
    return tuple(warnings), "".join(kept)


def _rich(output: NotebookNode, channel: str) -> Part | None:
    data = output.get("data", {})
    mime = next((m for m in PREFERRED if m in data), "")
    if not mime:
        return None
    if mime in RASTER:
        try:
            return Part(channel, mime, data=base64.b64decode(_text(data[mime])))
        except (binascii.Error, ValueError):
            return Part(channel, "text/plain", "<an unreadable image>")
    return Part(channel, mime, _text(data[mime]))


def _add(parts: list[Part], part: Part) -> None:
    """Append ``part``; a text on the same stream as the last one joins it."""
    last = parts[-1] if parts else None
    if last and part.channel in ("stdout", "stderr") and last.channel == part.channel:
        parts[-1] = Part(last.channel, last.mime, last.text + part.text)
    else:
        parts.append(part)


def read_outputs(cell: NotebookNode) -> CellOutputs:
    """The outputs of a code cell, read for comparing."""
    parts: list[Part] = []
    warnings: tuple[str, ...] = ()
    error = traceback = ""
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream" and output.get("name") == "stderr":
            found, rest = split_warnings(strip_ansi(_text(output.get("text", ""))))
            warnings += found
            if rest.strip():
                _add(parts, Part("stderr", "text/plain", rest))
        elif kind == "stream":
            _add(parts, Part("stdout", "text/plain", strip_ansi(_text(output.get("text", "")))))
        elif kind in ("execute_result", "display_data"):
            part = _rich(output, "result" if kind == "execute_result" else "display")
            if part is not None:
                parts.append(part)
        elif kind == "error":
            error = f"{output.get('ename', '')}: {output.get('evalue', '')}"
            traceback = strip_ansi("\n".join(output.get("traceback", [])))
    ran = cell.get("execution_count") is not None or bool(cell.get("outputs"))
    skipped = bool(cell_meta(cell).skipped)
    return CellOutputs(tuple(parts), warnings, error, traceback, ran, skipped)
