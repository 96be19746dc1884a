"""Shared fixtures: copies of the fixture book, so that no test writes into the repo."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def copy_book(target: Path, name: str = "book") -> Path:
    shutil.copytree(FIXTURES / name, target, ignore=shutil.ignore_patterns("_build"))
    return target


@pytest.fixture
def book_copy(tmp_path: Path) -> Path:
    """A fresh copy of the fixture book."""
    return copy_book(tmp_path / "book")
