"""Shared fixtures: copies of the fixture book, so that no test writes into the repo, and the
fixture book built once end to end for the modules that read it back."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from .books import Built, Collect, build, copy_fixture, tree_digest


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
