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


# What a slow test needs beyond Sphinx, by module (a slow test with none of these builds
# with Sphinx alone; a test that opens a page in Chromium is marked `browser` by its fixtures).
NEEDS: dict[str, frozenset[str]] = {
    "kernel": frozenset(
        [
            "test_students_site",
            "test_frameworks_data",
            "test_key_readers",
            "test_bad_sources",
            "test_failing_cells",
            "test_interrupted_builds",
            "test_broken_environments",
            "test_build_folder",
            "test_library_foreign",
            "test_env_setup",
            "test_plain_notebooks",
            "test_notebooks",
            "test_slides_book",
            "test_drift_upgrade",
            "test_build_e2e",
            "test_fuzz_found",
            "test_d2lbook_execution",
            "test_fuzz",
            "test_cli",
            "test_new_book",
            "test_editions",
            "test_authoring",
            "test_authoring_units",
            "test_kernel_units",
            "test_zygote_preload",
            "test_forked_kernels",
            "test_executor_capabilities",
            "test_downloads",
            "test_watchdog",
            "test_cache",
            "test_executors",
            "test_dask",
            "test_figures",
            "test_kernel",
            "test_book_builds",
            "test_compat",
            "test_drift",
            "test_freeze",
            "test_freeze_all",
            "test_shipped_gpu_run",
            "test_gpu_hosts",
            "test_outputs_store",
        ]
    ),
    "latex": frozenset(["test_pdf", "test_pdf_moving", "test_killed_builds"]),
    "venv": frozenset(
        [
            "test_students_site",
            "test_frameworks_data",
            "test_broken_environments",
            "test_package",
            "test_installer",
            "test_env_setup",
            "test_plugins",
            "test_dask",
            "test_dist",
            "test_run_notebooks_site",
        ]
    ),
    "browser": frozenset(
        [
            "test_tabs_browser",
            "test_reader_focus_browser",
            "test_compare_browser",
            "test_compat_line_browser",
            "test_accessibility",
            "test_switcher_place_browser",
            "test_search_browser",
            "test_reader_layout_browser",
            "test_tab_choice_browser",
            "test_reader_edges_browser",
            "test_site_language",
            "test_header_links",
            "test_site_fixture",
        ]
    ),
}
BROWSER_FIXTURES = frozenset({"chromium", "context", "page", "open_page"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each slow test marked with what it needs (`-m "slow and not latex"`…)."""
    for item in items:
        if item.get_closest_marker("slow") is None:
            continue
        for need, modules in NEEDS.items():
            if item.path.stem in modules:
                item.add_marker(need)
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("browser")


@pytest.fixture(scope="session")
def shared_environments() -> Path:
    """Books made in temporary folders have no ``.envs`` of their own: they share a folder
    of links to the shipped book's environments (``$POLYBOOK_ENVS``), which keeps what
    tests set up there (a fifth framework's environment, kernels) between runs."""
    return link_environments(REPO_ENVS.path / "tests-shared")


@pytest.fixture(scope="session", autouse=True)
def environments_folder(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """A session that runs a slow test shares the environments (from before any fixture
    builds a book, whatever its scope); one of fast tests alone points its books at a
    temporary folder, so that it writes nothing outside temporary folders."""
    slow = any(item.get_closest_marker("slow") for item in request.session.items)
    folder: Path = (
        request.getfixturevalue("shared_environments")
        if slow
        else tmp_path_factory.getbasetemp() / "no-envs"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVS_VARIABLE, str(folder))
        yield folder


@pytest.fixture(autouse=True)
def asked_environments(request: pytest.FixtureRequest) -> Iterator[None]:
    """A fast test that reads what the environments hold asks for ``shared_environments``."""
    if "shared_environments" not in request.fixturenames:
        yield
        return
    folder: Path = request.getfixturevalue("shared_environments")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVS_VARIABLE, str(folder))
        yield


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
