"""Runs one Sphinx build in its own process.

``python -m polybook.site.sphinx_run SETTINGS.json [--fresh]``: ``--fresh`` rereads every
page (Sphinx's ``-E``). Sphinx and docutils keep registries at module level; a process per
build keeps them, and their memory, out of the orchestrator. Warnings go, located, to the
settings' ``diagnostics`` file (written by the extension); Sphinx's other messages to its
``log`` file; stderr carries only a crash's traceback.
"""

from __future__ import annotations

import json
import sys


def main(settings_path: str, fresh: bool = False) -> int:
    from sphinx._cli.util.colour import disable_colour
    from sphinx.application import Sphinx

    disable_colour()  # a plain log file
    with open(settings_path, encoding="utf-8") as handle:
        settings = json.load(handle)
    overrides = {**settings["config"], "pb_diagnostics": settings["diagnostics"]}
    with open(settings["log"], "w", encoding="utf-8") as log:
        app = Sphinx(
            srcdir=settings["srcdir"],
            confdir=None,
            outdir=settings["outdir"],
            doctreedir=settings["doctreedir"],
            buildername=settings["builder"],
            confoverrides=overrides,
            status=log,
            warning=log,
            freshenv=fresh,
        )
        app.build()
    return 0 if app.statuscode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "--fresh" in sys.argv[2:]))
