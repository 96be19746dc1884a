"""Shared fixtures: the shipped book's framework environments for every book a test makes,
copies of the fixture book, so that no test writes into the repo, the fixture book built
once end to end for the modules that read it back, the shipped book's epubs and site,
built once from the execution cache for the modules that check them, and the browser tests'
Chromium (one a module), its fresh context for each test and the pages opened in it."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from polybook.layout import ENVS_VARIABLE

from .books import REPO, Built, Collect, build, copy_fixture, shipped_with_cache, tree_digest
from .environments import REPO_ENVS, link_environments
from .fuzzing import FAST_EXAMPLES  # noqa: F401  (registers Hypothesis' profiles, loads `fast`)

if TYPE_CHECKING:  # Playwright is imported by the browser tests alone
    from playwright.sync_api import Browser, BrowserContext, Page

    from .browser import OpenPage


@pytest.fixture(scope="session", autouse=True)
def shared_environments() -> Iterator[Path]:
    """Books made in temporary folders have no ``.envs`` of their own: they share a folder
    of links to the shipped book's environments (``$POLYBOOK_ENVS``), which keeps what
    tests set up there (a fifth framework's environment, kernels) between runs."""
    folder = link_environments(REPO_ENVS.path / "tests-shared")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVS_VARIABLE, str(folder))
        yield folder


@pytest.fixture
def book_copy(tmp_path: Path) -> Path:
    """A fresh copy of the fixture book."""
    return copy_fixture(tmp_path / "book")


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    root = copy_fixture(tmp_path_factory.mktemp("e2e") / "book")
    before = tree_digest(root)
    collect = Collect()
    logger = logging.getLogger("polybook")
    logger.addHandler(collect)
    try:
        code = build(root)
    finally:
        logger.removeHandler(collect)
    yield Built(root, before, code, collect.messages)


@pytest.fixture(scope="session")
def shipped_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped book, its epubs built, then its site (which links them); its root."""
    root = shipped_with_cache(tmp_path_factory.mktemp("shipped") / "book")
    shutil.copytree(REPO / "_compat", root / "_compat")  # its works-with lines, as CI's site
    assert build(root, "epub", "--tab", "all") == 0
    assert build(root, "html", "--tab", "all") == 0
    return root


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """The system Chromium, started once for a module's tests."""
    from .browser import launch_chromium

    with launch_chromium() as browser:
        yield browser


@pytest.fixture
def window_size() -> tuple[int, int]:
    """The width and height of a test's ``context`` (a module overrides it)."""
    return (1024, 768)


@pytest.fixture
def start_page() -> Path:
    """The page ``open_page()`` opens when given none (a module overrides it)."""
    raise NotImplementedError("the module names its start_page")


@pytest.fixture
def context(chromium: Browser, window_size: tuple[int, int]) -> Iterator[BrowserContext]:
    """A fresh context (empty storage) for one test; any wait gives up after 5 s."""
    from .browser import new_context

    width, height = window_size
    with new_context(chromium, width=width, height=height) as ctx:
        ctx.set_default_timeout(5000)
        yield ctx


@pytest.fixture
def open_page(context: BrowserContext, start_page: Path) -> Iterator[OpenPage]:
    """Open a page (default: ``start_page``), with a query and a fragment, from ``file://``
    in a new page of the test's context; no JavaScript error allowed."""
    from .browser import file_url, watch_errors

    errors: list[list[str]] = []

    def _open(
        path: Path = start_page, query: dict[str, str] | None = None, fragment: str = ""
    ) -> Page:
        page = context.new_page()
        errors.append(watch_errors(page))
        page.goto(file_url(path, query, fragment))
        return page

    yield _open
    problems = [e for page_errors in errors for e in page_errors]
    assert not problems, f"JavaScript errors: {problems}"
