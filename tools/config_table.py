"""Rewrite docs/configuration.md's table from polybook's schema; ``--check`` only compares.

.envs/tool/bin/python tools/config_table.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

from polybook.config import with_table

REPO = Path(__file__).resolve().parent.parent
README = REPO / "docs" / "configuration.md"


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    updated = with_table(text)
    if updated == text:
        return 0
    if "--check" in argv:
        print(f"{README}: the configuration table is out of date", file=sys.stderr)
        return 1
    README.write_text(updated, encoding="utf-8")
    print(f"rewrote the configuration table in {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
