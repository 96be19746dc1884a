"""Headless Chromium for browser tests: Debian's ``chromium`` package driven by Playwright.

Playwright's own browser downloads are not used (``playwright install`` needs the network);
the browser is the system one at :data:`CHROMIUM`, installed by ``make system-deps``
(``apt-get install -y chromium``). A missing browser is an error, not a skipped test.

The tests' fixtures are in ``conftest.py``: ``chromium`` (one a module), ``context`` (fresh,
empty localStorage for each test, of the module's ``window_size``) and ``open_page`` (opens
a page, the module's ``start_page`` by default, and fails the test on a JavaScript error).

All pages opened in one context share its storage, ``file://`` pages included, so a value
stored in ``localStorage`` by one page is read by the next page of the same context.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final
from urllib.parse import urlencode

from playwright.sync_api import Browser, BrowserContext, Page, Route, sync_playwright

CHROMIUM: Final = Path("/usr/bin/chromium")
"""The system Chromium (Debian package ``chromium``)."""

CHROMIUM_ARGS: Final = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

DEFAULT_VIEWPORT: Final = {"width": 1024, "height": 768}

OpenPage = Callable[..., Page]
"""``open_page(path, query, fragment)``: conftest.py's fixture that opens a page."""


class ChromiumMissingError(RuntimeError):
    """The system Chromium that the browser tests drive is not installed."""


def chromium_path() -> Path:
    """Return the Chromium executable, or raise :class:`ChromiumMissingError`."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        raise ChromiumMissingError(
            f"{CHROMIUM} not found: the browser tests need Debian's Chromium. "
            "Run `make system-deps` (it runs `apt-get install -y chromium`); "
            "do not run `playwright install`."
        )
    return CHROMIUM


@contextmanager
def launch_chromium(*, headless: bool = True) -> Iterator[Browser]:
    """Start Playwright and the system Chromium; stop both on exit."""
    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(executable),
            args=list(CHROMIUM_ARGS),
            headless=headless,
        )
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def new_context(
    browser: Browser,
    *,
    width: int = DEFAULT_VIEWPORT["width"],
    height: int = DEFAULT_VIEWPORT["height"],
) -> Iterator[BrowserContext]:
    """A fresh browser context (empty storage, no cookies), closed on exit.

    Its pages share one ``localStorage``, ``file://`` pages included.
    """
    context = browser.new_context(
        viewport={"width": width, "height": height},
        service_workers="block",
    )
    try:
        yield context
    finally:
        context.close()


@contextmanager
def browser_context(
    *, width: int = DEFAULT_VIEWPORT["width"], height: int = DEFAULT_VIEWPORT["height"]
) -> Iterator[BrowserContext]:
    """Launch Chromium and yield one fresh context: for a one-off script or test."""
    with launch_chromium() as browser, new_context(browser, width=width, height=height) as ctx:
        yield ctx


def file_url(path: Path, query: Mapping[str, str] | None = None, fragment: str = "") -> str:
    """The ``file://`` URL of ``path``, with an optional query and fragment."""
    url = path.resolve().as_uri()
    if query:
        url += "?" + urlencode(dict(query))
    if fragment:
        url += "#" + fragment
    return url


def watch_errors(page: Page) -> list[str]:
    """Collect the page's uncaught JavaScript errors and console errors into a live list."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.on(
        "console",
        lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    return errors


@contextmanager
def offline_page(calls: list[str]) -> Iterator[tuple[BrowserContext, Page, list[str]]]:
    """A page whose requests outside ``file://`` are refused and listed in ``calls``."""
    with browser_context() as context:

        def only_local(route: Route) -> None:
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                calls.append(route.request.url)
                route.abort()

        context.route("**/*", only_local)
        page = context.new_page()
        errors = watch_errors(page)
        yield context, page, errors
