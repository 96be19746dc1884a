"""Golden files: created when missing (the test then fails until reviewed), compared always."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

UPDATE_VARIABLE = "POLYBOOK_UPDATE_GOLDEN"


def in_ci(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` is a CI run's (``$CI`` set, as ``.ci/run`` and CI services set it)."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def ci_refusal(environ: Mapping[str, str]) -> str:
    """Why this run may not rewrite golden files ("" where it may): under CI they are only
    compared, or a change of output would pass as its own expectation."""
    if environ.get(UPDATE_VARIABLE, "") and in_ci(environ):
        return (
            f"${UPDATE_VARIABLE} is set under CI (CI={environ['CI']}): CI compares the golden"
            f" files and never rewrites them; unset {UPDATE_VARIABLE} and rewrite them locally"
        )
    return ""


# Rewrite instead of compare: asked for, and never under CI (where a test fails instead).
UPDATE = os.environ.get(UPDATE_VARIABLE) == "1" and not ci_refusal(os.environ)


def check_golden(path: Path, actual: str) -> None:
    """Compare ``actual`` with the golden file at ``path``."""
    if UPDATE or not path.exists():
        path.write_text(actual, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written: review it")
        return
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path.name} differs (POLYBOOK_UPDATE_GOLDEN=1 to rewrite)"
