"""``make screenshots``: PNGs of a built page in each framework, light and dark, for review.

Opens the built site (``make html``) from ``file://`` in headless Chromium, with the
framework chosen by ``?tab=`` and the theme by Furo's stored choice, and writes the whole
page to ``_build/screenshots/<page>-<framework>-<light|dark>.png``.

    python -m tools.screenshots [--root BOOK] [--page chapter_builders-guide/use-gpu]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from polybook.config import find_book_root, load_config
from tests.browser import browser_context, file_url

DEFAULT_PAGE = "chapter_builders-guide/use-gpu"  # the GPUs page
THEMES = ("light", "dark")
WIDTH, HEIGHT = 1280, 900


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="the book (default: here)")
    parser.add_argument("--page", default=DEFAULT_PAGE, help="docname of the page")
    args = parser.parse_args(argv)
    config = load_config(args.root or find_book_root(Path.cwd()))
    page = config.build_dir / "html" / f"{args.page}.html"
    if not page.is_file():
        print(f"screenshots: {page} is not built: run `make html` first", file=sys.stderr)
        return 1
    out = config.build_dir / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    name = args.page.rsplit("/", 1)[-1]
    with browser_context(width=WIDTH, height=HEIGHT) as context:
        for theme in THEMES:
            for framework in config.build.tabs:
                tab = context.new_page()
                tab.add_init_script(f"localStorage.setItem('theme', '{theme}')")
                tab.goto(file_url(page, {"tab": framework}))
                tab.wait_for_load_state("load")
                target = out / f"{name}-{framework}-{theme}.png"
                tab.screenshot(path=str(target), full_page=True)
                tab.close()
                print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
