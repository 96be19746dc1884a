"""The tool's own scripts and styles as the site publishes them: without their comments, so
that a reader's browser loads only what runs (the sources keep them, for their readers).

A script loses its whole-line comments (``// …`` lines, ``/* … */`` blocks that start a
line and end one); one with a template literal across lines is published as it is. A style
sheet loses every ``/* … */``.

They are published as soon as the static files are copied, before the pages are written:
each page's ``?v=`` names the published file's checksum. So is the theme's code style sheet
(furo writes it again when the build ends, the same)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from polybook.fsutil import write_atomic
from polybook.render.sphinx.small_builds import STATIC_COPIED

TOOL_STATIC = Path(__file__).parent / "static"
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def script_without_comments(text: str) -> str:
    """``text`` (JavaScript) less its whole-line comments; unchanged where a template
    literal spans lines (a line of it may look like a comment)."""
    kept: list[str] = []
    in_block = False
    for line in text.splitlines(keepends=True):
        bare = line.strip()
        if in_block:
            in_block = not bare.endswith("*/")
            continue
        if bare.startswith("/*"):
            in_block = not bare.endswith("*/") or bare == "/*"
            if "*/" in bare and not bare.endswith("*/"):
                return text  # code after a comment on its line: not judged here
            continue
        if bare.startswith("//"):
            continue
        if line.count("`") % 2:
            return text
        kept.append(line)
    return "".join(kept)


def style_without_comments(text: str) -> str:
    """``text`` (CSS) less its comments; lines they leave empty go too."""
    lines = _CSS_COMMENT.sub("", text).splitlines(keepends=True)
    return "".join(line for line in lines if line.strip())


def _publish_final(app: Sphinx) -> None:
    """Once the static files are copied: the site's copies of the tool's scripts and styles,
    lean, and the theme's code style sheet as it leaves it."""
    if app.builder.format != "html":
        return
    published = Path(app.outdir) / "_static"
    if app.config.html_theme == "furo" and (published / "pygments.css").is_file():
        from furo import get_pygments_stylesheet

        write_atomic(published / "pygments.css", get_pygments_stylesheet())
    for source in sorted(TOOL_STATIC.glob("*")):
        target = published / source.name
        if source.suffix not in (".js", ".css") or not target.is_file():
            continue
        text = source.read_text(encoding="utf-8")
        lean = (
            script_without_comments(text)
            if source.suffix == ".js"
            else style_without_comments(text)
        )
        if target.read_text(encoding="utf-8") != lean:
            write_atomic(target, lean)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect(STATIC_COPIED, _publish_final)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
