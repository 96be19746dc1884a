"""Runs one Sphinx build in its own process: ``python -m polybook.sphinx_run SETTINGS.json``.

Sphinx and docutils keep registries at module level; a process per build keeps them, and
their memory, out of the orchestrator.
"""

from __future__ import annotations

import io
import json
import sys


def main(settings_path: str) -> int:
    from sphinx.application import Sphinx

    with open(settings_path, encoding="utf-8") as handle:
        settings = json.load(handle)
    app = Sphinx(
        srcdir=settings["srcdir"],
        confdir=None,
        outdir=settings["outdir"],
        doctreedir=settings["doctreedir"],
        buildername=settings["builder"],
        confoverrides=settings["config"],
        status=io.StringIO(),
        warning=sys.stderr,
        freshenv=False,
    )
    app.build()
    return 0 if app.statuscode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
