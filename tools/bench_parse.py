"""``make bench``'s ``parse`` section: the Markdown parse of every page of a d2l book (its
``[build] tabs``), in this process, best of 3; the pages are read before the clock starts.

Needs a d2l-en checkout (``D2L_EN``), or a book's folder as the argument:
``python -m tools.bench_parse /path/to/d2l-en``.
"""

from __future__ import annotations

import configparser
import os
import sys
import time
from pathlib import Path

Row = tuple[str, str, str]
TITLE = "the Markdown parse of a whole book (best of 3)"
RUNS = 3


def _pages(book: Path) -> list[tuple[str, str]]:
    """(path from the root, text) of every page, the build folder's aside."""
    return [
        (path.relative_to(book).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(book.rglob("*.md"))
        if "_build" not in path.relative_to(book).parts
    ]


def _tabs(book: Path) -> tuple[str, ...]:
    config = configparser.ConfigParser()
    config.read(book / "config.ini", encoding="utf-8")
    spec = config.get("build", "tabs", fallback="pytorch")
    return tuple(name.strip() for name in spec.split(",") if name.strip())


def parse_figures(book: Path) -> list[Row]:
    from polybook.diagnostics import PolybookError
    from polybook.source.parse import parse

    pages, tabs = _pages(book), _tabs(book)
    best, failed = float("inf"), 0
    for _ in range(RUNS):
        failed = 0
        started = time.perf_counter()
        for rel, text in pages:
            try:
                parse(text, rel, tabs)
            except PolybookError:
                failed += 1
        best = min(best, time.perf_counter() - started)
    lines = sum(text.count("\n") + 1 for _, text in pages)
    return [
        (f"{book.name}: pages x tabs", f"{len(pages)} x {len(tabs)}, {lines} lines", ""),
        ("parse of every page", f"{best:.2f} s ({failed} pages failed)", ""),
    ]


def main(argv: list[str]) -> int:
    book = argv[0] if argv else os.environ.get("D2L_EN", "")
    if not book:
        print("bench_parse: give a book's folder, or set D2L_EN", file=sys.stderr)
        return 2
    from tools.bench_common import show

    show(TITLE, parse_figures(Path(book)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
