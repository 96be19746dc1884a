"""The reader's figures for ``make bench``: what the front page, the GPUs page and the
Toolkit page of a built site load (bytes, every file the page asks for) and when they first
paint, in Debian's Chromium from ``file://``, at a laptop's 1366×900 and a phone's 390×844.

``python -m tools.bench_reader SITE`` measures a site already built (its ``_build/html``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlsplit

from playwright.sync_api import Request

PAGES = {
    "front page": "index.html",
    "GPUs": "chapter_builders-guide/use-gpu.html",
    "Toolkit": "chapter_builders-guide/toolkit.html",
}
SIZES = {"1366x900": (1366, 900), "390x844": (390, 844)}
FIRST_PAINT = """() => new Promise((done) => {
  const seen = () => performance.getEntriesByName('first-contentful-paint')[0];
  const wait = () => seen() ? done(seen().startTime) : setTimeout(wait, 20);
  wait();
})"""


def _bytes(url: str) -> int:
    """The size of a file a page loaded from ``file://`` (0 for anything else)."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return 0
    path = Path(unquote(parts.path))
    return path.stat().st_size if path.is_file() else 0


def _recorder(loaded: list[str]) -> Callable[[Request], None]:
    return lambda request: loaded.append(request.url)


def measure(html: Path) -> dict[tuple[str, str], tuple[int, float]]:
    """(page, size) -> (bytes loaded, first contentful paint in ms), each page opened fresh."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.browser import launch_chromium

    found: dict[tuple[str, str], tuple[int, float]] = {}
    with launch_chromium() as browser:
        for size, (width, height) in SIZES.items():
            for name, page_path in PAGES.items():
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                loaded: list[str] = []
                page.on("requestfinished", _recorder(loaded))
                page.goto((html / page_path).as_uri(), wait_until="networkidle")
                paint = float(page.evaluate(FIRST_PAINT))
                total = sum(_bytes(url.split("#")[0].split("?")[0]) for url in set(loaded))
                found[(name, size)] = (total, paint)
                context.close()
    return found


def reader_rows(html: Path) -> list[tuple[str, str, str]]:
    """Rows for :func:`tools.bench.show`."""
    rows = []
    for (name, size), (total, paint) in measure(html).items():
        target = "<= 500 KB" if name == "Toolkit" else ""
        rows.append(
            (
                f"{name}, {size}: bytes loaded, first paint",
                f"{total / 1000:.0f} KB, {paint:.0f} ms",
                target,
            )
        )
    return rows


if __name__ == "__main__":
    html = Path(sys.argv[1]) / "_build" / "html"
    for row in reader_rows(html):
        print(f"  {row[0]:<50}  {row[1]}" + (f"   [target {row[2]}]" if row[2] else ""))
