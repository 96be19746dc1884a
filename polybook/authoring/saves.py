"""``python -m polybook.authoring.saves FRAMEWORK < cell``: the names a cell's ``#@save``
marks send to the library, as JSON (the polybook kernels ask, after such a cell runs)."""

from __future__ import annotations

import json
import sys

from polybook.diagnostics import PolybookError
from polybook.library.saves import cell_blocks
from polybook.nb import new_code_cell


def saved_names(source: str, framework: str) -> list[str]:
    """Module-level names the ``#@save`` code of ``source`` defines (methods aside)."""
    cell = new_code_cell(source, "cell")
    names: set[str] = set()
    for block in cell_blocks(cell, "cell", 0, framework):
        for statement in block.statements:
            names |= statement.names
    return sorted(names)


def main() -> int:
    try:
        print(json.dumps(saved_names(sys.stdin.read(), sys.argv[1])))
    except (PolybookError, SyntaxError) as exc:
        print(f"#@save: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
