"""A cold site's formulas, drawn while its pages are prepared.

A site built without drawings in its math cache (a first build, a fresh clone) had every
formula drawn once Sphinx had read every page: d2l-en's 3,795 kept Sphinx waiting some
4 s before it could write a page. Nearly all are known much sooner: the book's Markdown,
read with MyST's parser and the site's MyST syntax, holds them as the pages will (d2l-en,
four tabs: all 3,804; d2l-zh: 2,071 of 2,096; a page as polybook rewrites it may differ).
So a cold build starts this process as it starts: it reads the pages that write a ``$``,
then draws their formulas into the math cache in one Node process, on the CPU that the
build's own preparation of the pages leaves idle. It holds the cache's lock while it
draws (:func:`.math_svg.drawing_lock`); the build's drawing waits for it, then draws
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
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.site.math_svg import Formula, aligned_tex, cache_folder, draw, drawing_lock

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

DISPLAY = ("math_inline_double", "math_block", "math_block_label", "amsmath")


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
    return create_md_parser(syntax, RendererHTML)


def page_formulas(text: str) -> set[Formula]:
    """The formulas of a Markdown page as MyST reads them: (TeX, display)."""
    from myst_parser.mdit_to_docutils.base import strip_blank_lines

    found: set[Formula] = set()
    waiting = list(_parser().parse(text))
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
