"""Rewrite README.md's table of outputs (``polybook build <name>``, and its make target where
the Makefile has one) from the output registry; ``--check`` only compares.

.envs/tool/bin/python -m tools.command_table [--check]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from polybook.config.table import with_block
from polybook.output import Output
from polybook.pipeline.registry import OUTPUTS
from tools.config_table import regenerate

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
MAKEFILE = REPO / "Makefile"


def make_targets(makefile: str) -> set[str]:
    """The targets the Makefile declares."""
    return set(re.findall(r"^([a-z][a-z-]*):", makefile, re.MULTILINE))


def markdown_table(outputs: tuple[Output, ...], targets: set[str]) -> str:
    """One row per output, in the registry's order."""
    rows = ["| make | polybook | what |", "|---|---|---|"]
    for output in outputs:
        make = f" `make {output.name}`" if output.name in targets else ""
        rows.append(f"|{make} | `polybook build {output.name}` | {output.help} |")
    return "\n".join(rows) + "\n"


def with_outputs(text: str, outputs: tuple[Output, ...] = OUTPUTS) -> str:
    """README's ``text`` with its table of outputs rewritten."""
    targets = make_targets(MAKEFILE.read_text(encoding="utf-8"))
    return with_block(text, "outputs", markdown_table(outputs, targets))


def main(argv: list[str]) -> int:
    return regenerate(README, with_outputs, "table of outputs", argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
