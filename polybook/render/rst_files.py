"""Files a page's reStructuredText reads: ``.. raw:: html`` with ``:file:`` (d2l's front
page). docutils reads the file relative to the page; the page is rendered in another
folder, so the file, found relative to the page in the book (and only inside the book),
is written beside the rendered page. One it cannot find leaves its directive out, with a
located warning."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from polybook.diagnostics import Location, Reporter

RAW = re.compile(r"^(\s*)\.\.\s+raw::")
FILE_OPTION = re.compile(r"^(\s+):file:\s*(\S.*?)\s*$")


@dataclass
class PageFiles:
    """The files one page's ``raw`` directives read: path relative to the book -> bytes."""

    root: Path
    page: str  # the page, relative to the book root
    found: dict[str, bytes] = field(default_factory=dict)

    def read(self, name: str) -> tuple[str, bytes] | str:
        """``name`` (as the option writes it) -> (its path in the book, its bytes), or why
        it cannot be read."""
        base = PurePosixPath(self.page).parent
        relative = posixpath.normpath((base / name).as_posix())
        root = self.root.resolve()
        target = (self.root / relative).resolve()
        if relative.startswith("../") or not target.is_relative_to(root):
            return f"`:file: {name}` is outside the book"
        if relative.endswith(".md"):
            return f"`:file: {name}` is a page of the book, not a file to show"
        try:
            return relative, target.read_bytes()
        except OSError as exc:
            return f"`:file: {name}`: {exc.strerror or exc} ({relative})"


def rst_lines(
    lines: list[str], origins: list[int], files: PageFiles | None, path: str, reporter: Reporter
) -> list[str]:
    """An ``eval_rst`` block's lines (its fences aside) as Sphinx gets them: each ``raw``
    directive's ``:file:`` read into ``files``; one that cannot be read turns its directive
    into a comment."""
    if files is None or not any(":file:" in line for line in lines):
        return lines
    out = list(lines)
    directive = -1  # the line of the innermost ``.. raw::`` seen
    for index, line in enumerate(lines):
        if RAW.match(line):
            directive = index
            continue
        option = FILE_OPTION.match(line)
        if option is None or directive < 0:
            continue
        read = files.read(option.group(2))
        if isinstance(read, tuple):
            files.found[read[0]] = read[1]
            continue
        reporter.warn(Location(path, origins[index]), f"{read}: left out", "render.raw")
        head = out[directive]
        out[directive] = head[: len(head) - len(head.lstrip())] + ".. left out: " + head.strip()
    return out
