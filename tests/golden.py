"""Golden files: created when missing (the test then fails until reviewed), compared always."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

UPDATE = os.environ.get("POLYBOOK_UPDATE_GOLDEN") == "1"


def check_golden(path: Path, actual: str) -> None:
    """Compare ``actual`` with the golden file at ``path``."""
    if UPDATE or not path.exists():
        path.write_text(actual, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written: review it")
        return
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path.name} differs (POLYBOOK_UPDATE_GOLDEN=1 to rewrite)"
