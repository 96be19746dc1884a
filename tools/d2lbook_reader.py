"""d2lbook 1.0.3's reading of a book's pages, as ``d2lbook build eval`` makes each framework's
notebook before it runs it: ``read_markdown``, ``split_markdown_cell``, ``get_tab_notebook``
and ``replace_alias`` (``format_code``, which sorts imports, aside).

Runs in the d2lbook reader's venv (see :mod:`tools.d2lbook_diff`), in the book's folder: it
reads ``{"pages": [...]}`` on stdin and writes, for each page and each of the book's tabs,
``null`` (no notebook), ``{"code": [...], "required_libs": [...]}`` or ``{"error": "..."}``.
It imports nothing of polybook's.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any


def read_page(page: str, tabs: list[str], default: str, library: dict[str, Any]) -> Any:
    notebook = importlib.import_module("d2lbook.notebook")
    aliases = importlib.import_module("d2lbook.library")
    with open(page, encoding="utf-8") as file:
        nb = notebook.split_markdown_cell(notebook.read_markdown(file.read()))
    found: dict[str, Any] = {}
    for tab in tabs:
        try:
            tab_nb = notebook.get_tab_notebook(nb, tab, default)
            if tab_nb is not None and tab in library:
                tab_nb = aliases.replace_alias(tab_nb, library[tab])
        except Exception as exc:  # d2lbook stops here: the comparison says so
            found[tab] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        if tab_nb is None:
            found[tab] = None
            continue
        found[tab] = {
            "code": [c.source for c in tab_nb.cells if c.cell_type == "code"],
            "required_libs": list(tab_nb.metadata.get("required_libs", [])),
        }
    return found


def main() -> int:
    request = json.load(sys.stdin)
    config = importlib.import_module("d2lbook.config").Config(config_fname="config.ini")
    out: dict[str, Any] = {}
    for page in request["pages"]:
        try:
            out[page] = read_page(page, config.tabs, config.default_tab, config.library)
        except Exception as exc:
            out[page] = {"error": f"{type(exc).__name__}: {exc}"}
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
