"""A cold site's formulas, drawn while its pages are prepared.

A site built without drawings in its math cache (a first build, a fresh clone) had every
formula drawn once Sphinx had read every page: d2l-en's 3,795 kept Sphinx waiting some
4 s before it could write a page. Nearly all are known much sooner: the book's Markdown,
read with MyST's parser and the site's MyST syntax, holds them as the pages will (d2l-en,
four tabs: all 3,804; d2l-zh: 2,071 of 2,096; a page as polybook rewrites it may differ).
So a cold build starts this process as it starts: it reads the pages that write a ``$``,
then draws their formulas into the math cache in one Node process, on the CPU that the
build's own preparation of the pages leaves idle. It holds the cache's lock while it
draws (:func:`.math_draw.drawing_lock`); the build's drawing waits for it, then draws
only what is still missing. A formula it drew that no page shows costs its drawing
alone; it writes nothing else, and dies with the build.

``python -m polybook.site.math_prefetch CACHE ROOT PAGE…`` (pages relative to the book's
``ROOT``, checked to lie inside it by the caller).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.site.math_draw import Formula, aligned_tex, cache_folder, draw, drawing_lock

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

DISPLAY = ("math_inline_double", "math_block", "math_block_label", "amsmath")
# A code fence's opening line at the page's top level (CommonMark: up to three spaces).
FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")


@functools.cache
def _parser() -> MarkdownIt:
    """MyST's Markdown parser with the site's syntax (see :mod:`.render.sphinx.config`)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    from polybook.render.sphinx.config import MYST_DOUBLE_INLINE, MYST_EXTENSIONS

    syntax = MdParserConfig(
        enable_extensions=set(MYST_EXTENSIONS), dmath_double_inline=MYST_DOUBLE_INLINE
    )
    parser = create_md_parser(syntax, RendererHTML)
    parser.core.ruler.at("inline", _inline_with_dollars)
    parser.disable("wordcount")
    return parser


def _inline_with_dollars(state: StateCore) -> None:
    """markdown-it's inline pass over the runs of text that write a ``$``: only those can
    hold an inline formula (a third of a page's parse, passed over)."""
    for token in state.tokens:
        if token.type == "inline":
            token.children = token.children or []
            if "$" in token.content:
                state.md.inline.parse(token.content, state.md, state.env, token.children)


def _dedented(lines: list[str]) -> str:
    """``lines`` less the indentation of the first (of each line, as much as it has): a
    list item's next paragraph read alone, as the item reads it."""
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    return "\n".join(line[min(indent, len(line) - len(line.lstrip(" "))) :] for line in lines)


def math_chunks(text: str) -> str:
    """The runs of ``text`` (blank-line apart; top-level code fences left out) that may
    hold a formula: those that write a ``$`` or begin an environment, each dedented (a
    display's blank lines stay in its run). Most of a page's block parse is its code and
    its prose without math: a third of the parse remains."""
    kept: list[str] = []
    chunk: list[str] = []
    closing: re.Pattern[str] | None = None
    displays = 0  # the ``$$`` of the run so far: odd inside a display

    def flush() -> None:
        run = "\n".join(chunk)
        if "$" in run or "\\begin{" in run:
            kept.append(_dedented(chunk))
        chunk.clear()

    for line in text.split("\n"):
        if closing is not None:
            if closing.fullmatch(line):
                closing = None
            continue
        opened = FENCE_OPEN.match(line)
        if opened and displays % 2 == 0 and "`" not in line[opened.end() :]:
            marks = opened.group(1)
            closing = re.compile(rf" {{0,3}}{re.escape(marks[0])}{{{len(marks)},}}[ \t]*")
            flush()
            displays = 0
        elif line.strip() or displays % 2:  # a blank line inside a display: it goes on
            chunk.append(line)
            displays += line.count("$$")
        else:
            flush()
            displays = 0
    flush()
    return "\n\n".join(kept)


def page_formulas(text: str) -> set[Formula]:
    """The formulas of a Markdown page as MyST reads them: (TeX, display)."""
    from myst_parser.mdit_to_docutils.base import strip_blank_lines

    found: set[Formula] = set()
    waiting = list(_parser().parse(math_chunks(text)))
    while waiting:
        token = waiting.pop()
        waiting += token.children or ()
        if token.type in ("math_inline", "math_single"):
            found.add((token.content, False))
        elif token.type in DISPLAY:
            tex = token.content if token.type == "amsmath" else strip_blank_lines(token.content)
            found.add((aligned_tex(tex), True))
    return found


def with_math(root: Path, pages: list[str]) -> list[str]:
    """The ``pages`` (relative to ``root``) that may hold math: those with a ``$``."""
    found = []
    for page in pages:
        with contextlib.suppress(OSError):
            if b"$" in (root / page).read_bytes():
                found.append(page)
    return found


def cached(cache: Path) -> bool:
    """Whether the site's math cache holds drawings (a build that is not cold)."""
    folder = cache_folder(cache)
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        return any(entry.name.endswith(".svg") for entry in entries)
    return False


def start(cache: Path, root: Path, pages: list[str]) -> subprocess.Popen[bytes] | None:
    """The early drawing of ``pages``' formulas, started where ``cache`` (the site's math
    cache) holds no drawing yet and Node can draw; else None."""
    if not pages or cached(cache) or not shutil.which("node"):
        return None
    command = [sys.executable, "-P", "-m", __name__, "--parent", str(os.getpid())]
    return subprocess.Popen(
        [*command, str(cache), str(root), *pages],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def main(argv: list[str]) -> int:
    from polybook.lifeline import die_with_parent, watch_parent

    parser = argparse.ArgumentParser(prog=f"python -m {__name__}")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("cache", type=Path)
    parser.add_argument("root", type=Path)
    parser.add_argument("pages", nargs="*")
    arguments = parser.parse_args(argv)
    if not die_with_parent(arguments.parent):
        watch_parent(arguments.parent)
    folder = cache_folder(arguments.cache)
    with drawing_lock(folder):
        formulas: set[Formula] = set()
        for page in arguments.pages:
            try:
                formulas |= page_formulas((arguments.root / page).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue  # the build says what is wrong with the page
        draw(folder, {f for f in formulas if f[0].strip()}, workers=1, read=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
