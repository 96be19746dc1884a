"""What a framework's zygote imports beside its framework: what the book's library imports
*and* its pages use, read from the pages (no guess). A page uses a module it imports itself
(in any cell, ``#@save`` too), or one the library imports where a page imports the library
(``from d2l import torch as d2l`` imports all of the library's imports). A library import
no page uses (a library left from an earlier version of the book, a module kept for
readers) costs each zygote its import and gains nothing."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.memo import FileMemo
from polybook.source.book import source_files

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection

FENCE = re.compile(r"^\s*(```|~~~)")
_READ: FileMemo[frozenset[str]] = FileMemo(4096)  # each page's, while it is unchanged


# A top-level import of the library module: ``import a.b as c``, ``from a.b import c, d``.
# Modules that bind themselves to the IPython shell they are imported in: with no shell in
# a zygote, matplotlib_inline skips its set-up, and pyplot then fails in the kernel
# (matplotlib 3.7 under IPython 9). Imported by the kernel itself, they cost 0.03 s.
SHELL_BOUND = ("matplotlib.pyplot", "matplotlib_inline", "pylab")
# What the kernels of a book whose code imports a shell-bound package import before it binds
# (the figure and both drawing backends: a second a kernel; pyplot after them, 0.08 s).
SHELL_FREE = {
    "matplotlib": (
        "matplotlib",
        "matplotlib.figure",
        "matplotlib.backends.backend_agg",
        "matplotlib.backends.backend_svg",
    )
}
TOP_IMPORT = re.compile(
    r"^(?:import\s+([\w., ]+?)|from\s+([\w.]+)\s+import\s+([\w, ]+?))\s*(?:#.*)?$"
)


def library_imports(lib_file: Path) -> tuple[str, ...]:
    """The modules the book's library (as last written) imports at its top, less itself:
    every kernel of the framework imports them with it (d2l-en's: torchvision, pandas,
    matplotlib… 3 s a kernel). Read line by line, with no parse: a cold build's head start
    asks before its first zygote starts."""
    try:
        text = lib_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    found: list[str] = []
    for line in text.splitlines():
        if line.startswith(("import ", "from ")):
            found += _imports_of(line)
    # Not the library's own package (d2l), nor the standard library (cheap, and in every
    # library's head: a cold build's head start, before the library is written, asks too),
    # nor what binds itself to the shell.
    skipped = {lib_file.parent.name, *sys.stdlib_module_names}
    return tuple(
        dict.fromkeys(
            m
            for m in found
            if m
            and m.split(".")[0] not in skipped
            and not any(m == b or m.startswith(b + ".") for b in SHELL_BOUND)
        )
    )


def _imports_of(line: str) -> list[str]:
    """The modules a top-level import statement ``line`` names (none for another line)."""
    match = TOP_IMPORT.match(line)
    if match is None:
        return []
    if match.group(1):
        return [part.split(" as ")[0].strip() for part in match.group(1).split(",")]
    package = match.group(2)
    names = [part.split(" as ")[0].strip() for part in match.group(3).split(",")]
    return [package, *(f"{package}.{name}" for name in names)]


def page_packages(root: Path, pages: list[str]) -> frozenset[str]:
    """The top-level packages the code of ``pages`` (under ``root``) imports; each page
    read once while it is unchanged (a page that cannot be read names none)."""
    found: set[str] = set()
    for page in pages:
        found |= _READ.value([root / page], functools.partial(_packages_of, root / page))
    return frozenset(found)


def _packages_of(path: Path) -> frozenset[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    found: set[str] = set()
    code = False
    for line in text.split("\n"):
        if FENCE.match(line):
            code = not code
        elif code and line.lstrip().startswith(("import ", "from ")):
            found.update(m.split(".")[0] for m in _imports_of(line.strip()))
    return frozenset(found)


def zygote_preload(book: Book, build: BuildSection, framework: str) -> tuple[str, ...]:
    """What the zygote of ``framework`` imports beside its framework: the library's imports
    (as last written) that the pages use, and the shell-free part of a shell-bound package
    (:data:`SHELL_FREE`) that the book's code imports anywhere."""
    lib_file = book.root / book.library_for(framework).lib_file
    used = page_packages(book.root, source_files(book.root, build))
    imports = library_imports(lib_file)
    if lib_file.parent.name in used:  # the pages import the library: all it imports
        used |= {m.split(".")[0] for m in imports}
    else:
        imports = tuple(m for m in imports if m.split(".")[0] in used)
    # A page's code (in a function too) that imports a shell-bound package: its shell-free part
    shell_free = (m for package in sorted(used & SHELL_FREE.keys()) for m in SHELL_FREE[package])
    return tuple(dict.fromkeys((*imports, *shell_free)))
