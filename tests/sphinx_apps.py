"""A bare Sphinx application on a folder of reStructuredText pages, for the tests of
polybook's Sphinx extensions one at a time (the extensions under test set up by the test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx


def rst_app(src: Path, work: Path, **overrides: Any) -> Sphinx:
    """Sphinx's ``html`` builder on ``src``, its output and doctrees under ``work``, its
    configuration ``overrides`` (numbered figures by default), a fresh environment."""
    return Sphinx(
        str(src),
        None,
        str(work / "out"),
        str(work / "doctrees"),
        "html",
        confoverrides={"numfig": True, **overrides},
        status=None,
        warning=None,
        freshenv=True,
    )
