"""Rewrite docs/configuration.md's tables (keys, executors) from polybook's schema and executor
registry; ``--check`` only compares.

.envs/tool/bin/python tools/config_table.py [--check]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from polybook.config.executors import markdown_list
from polybook.config.table import with_block, with_table

REPO = Path(__file__).resolve().parent.parent
README = REPO / "docs" / "configuration.md"


def reference(text: str) -> str:
    """``text`` with its generated blocks rewritten: the keys, then the executors."""
    return with_block(with_table(text), "executors", markdown_list())


def regenerate(path: Path, rewrite: Callable[[str], str], what: str, argv: list[str]) -> int:
    """``path`` with its generated ``what`` rewritten; with ``--check``, only whether it is
    up to date (exit 1 where it is not)."""
    text = path.read_text(encoding="utf-8")
    updated = rewrite(text)
    if updated == text:
        return 0
    if "--check" in argv:
        print(f"{path}: the {what} is out of date", file=sys.stderr)
        return 1
    path.write_text(updated, encoding="utf-8")
    print(f"rewrote the {what} in {path}")
    return 0


def main(argv: list[str]) -> int:
    return regenerate(README, reference, "configuration table", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
