"""What a student notebook's first cell installs: the page's own libraries, the book's
library and the framework.

Exactly what the page needs: what its ``#required_libs(...)`` names, first, one at a time in
its order, as d2lbook's Colab notebooks install them (``gym==0.21.0`` builds with the
``setuptools`` and ``wheel`` named before it); then nothing when its code imports neither
the library nor the framework, else the library (from where
:mod:`polybook.notebooks.library_source` says) and the framework at the version its pinned
environment holds (spelled as the CUDA set spells it on notebooks that need a GPU:
``jax[cuda12]==…``). Everything else the platform ships is used as it is.
"""

from __future__ import annotations

import ast
import re
import shlex
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.library.package_spec import PackageSpec
from polybook.library.pins import requirement_line
from polybook.memo import memoised

MAGIC = re.compile(r"^\s*[%!]")
IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.M)


@dataclass(frozen=True)
class Installs:
    """The requirements of the library and of each framework, for install cells."""

    package: str  # the library's import name (``d2l``)
    library: str  # what pip installs for it
    frameworks: dict[str, tuple[str, ...]]  # framework -> its distributions
    modules: dict[str, frozenset[str]]  # framework -> module names that need it

    def requirements(self, framework: str, imported: set[str], gpu: bool) -> list[str]:
        """What a page of ``framework`` that imports ``imported`` needs installed."""
        uses_library = self.package in imported
        if not uses_library and not imported & self.modules[framework]:
            return []
        device = "cuda" if gpu else "cpu"
        pins = [requirement_line(framework, n, device) for n in self.frameworks[framework]]
        return [self.library, *pins] if uses_library else pins


def installs(spec: PackageSpec, library: str) -> Installs:
    """What the notebooks install: ``library`` for the library (see
    :mod:`polybook.notebooks.library_source`) and each framework's pinned distributions."""
    names = {fw: tuple(r.name for r in reqs) for fw, reqs in spec.extras.items()}
    return Installs(spec.name, library, names, dict(spec.extra_modules))


def imported_modules(nb: NotebookNode) -> set[str]:
    """Top-level modules the code cells of ``nb`` import (magics left out)."""
    found: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            found |= _cell_imports(cell.source)
    return found


@memoised(65536)  # each cell read once while the process lives (serve)
def _cell_imports(code: str) -> frozenset[str]:
    if "import" not in code:  # most cells: nothing to parse
        return frozenset()
    source = "\n".join("" if MAGIC.match(t) else t for t in code.split("\n"))
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell the build ran as it is: read its import lines
        return frozenset((a or b).split(".")[0] for a, b in IMPORT.findall(source))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return frozenset(found)


def install_lines(requirements: Sequence[str], page_libraries: Sequence[str] = ()) -> list[str]:
    """What each ``pip install`` installs: the page's libraries one at a time, in their
    order, then the library and the framework at once."""
    lines = [shlex.quote(r) for r in page_libraries]
    if requirements:
        lines.append(" ".join(shlex.quote(r) for r in requirements))
    return lines


def install_source(requirements: Sequence[str], page_libraries: Sequence[str] = ()) -> str:
    """The first cell's code: a ``%pip install`` (into the kernel's own Python) of each of
    the page's libraries in turn, then of the library and the framework."""
    if not page_libraries:
        comment = [
            "# What this notebook needs beyond the platform's own packages: the book's library",
            "# and the framework version the book was built with.",
        ]
    else:
        page = "the libraries its page names, one at a time in their order"
        book = "the book's library and the framework version the book was built with"
        what = f"{page}, then {book}" if requirements else page
        text = f"What this notebook needs beyond the platform's own packages: {what}."
        comment = textwrap.wrap(text, width=88, initial_indent="# ", subsequent_indent="# ")
    commands = [f"%pip install -q {line}" for line in install_lines(requirements, page_libraries)]
    return "\n".join([*comment, *commands])
