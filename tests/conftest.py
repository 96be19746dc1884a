"""Shared fixtures: the shipped book's framework environments for every book a test makes,
copies of the fixture book, so that no test writes into the repo, the fixture book built
once end to end for the modules that read it back, and the shipped book's epubs and site,
built once from the execution cache for the modules that check them."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from polybook.layout import ENVS_VARIABLE

from .books import (
    REPO_ENVS,
    Built,
    Collect,
    build,
    copy_fixture,
    link_environments,
    shipped_with_cache,
    tree_digest,
)


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
    assert build(root, "epub", "--tab", "all") == 0
    assert build(root, "html", "--tab", "all") == 0
    return root
