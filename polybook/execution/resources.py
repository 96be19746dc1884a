"""The book's ``[build] resources`` (figures, data files) beside the notebooks as they run,
and beside the students' notebooks, as d2lbook copies them: a page's ``../img/catdog.jpg``
opens in its kernel as in the book.

The library package is left out: a kernel imports the build's snapshot of it, never a copy
in its working folder. The copies are the build's (``_build/eval/<framework>/``): a cell
that writes beside its page never writes into the book.

Downloads are shared: a page's ``../data`` (where d2l's ``download`` writes) is the book's
one download folder, ``[build] data`` (default ``_build/data``), for every framework.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from polybook.config import Book
from polybook.fsutil import write_atomic

SKIPPED = ("__pycache__", ".ipynb_checkpoints")


def resource_files(book: Book, resources: tuple[str, ...]) -> dict[str, Path]:
    """``resources`` (``[build] resources``) as relative path -> file, less the library
    packages and what lies outside the book (``check`` reports those at their key)."""
    libraries = {(book.root / book.library_for(fw).lib_file).parent.resolve() for fw in book.tabs}
    found: dict[str, Path] = {}
    for resource in resources:
        top = book.root / resource
        files = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in files:
            relative = path.relative_to(book.root)
            if not path.is_file() or any(part in SKIPPED for part in relative.parts):
                continue
            real = path.resolve()
            if libraries & {real, *real.parents} or not book.confinement.holds(path):
                continue
            found[relative.as_posix()] = path
    return found


def place_resources(book: Book, resources: tuple[str, ...], frameworks: Iterable[str]) -> int:
    """Copy the resources under each framework's folder of executed notebooks (only what
    changed); returns how many files were written."""
    files = resource_files(book, resources)
    written = 0
    for fw in frameworks:
        folder = book.layout.eval / fw
        for name, path in files.items():
            written += write_atomic(folder / name, path.read_bytes())
    return written


def data_folder(book: Book, configured: str) -> Path:
    """The book's download folder: ``[build] data`` (``configured``, relative to the book
    root), else ``_build/data``."""
    return book.root / Path(configured).expanduser() if configured else book.layout.build / "data"


def _link(link: Path, target: Path) -> None:
    """``link`` made a link to ``target``; what a folder there held moves into ``target``
    (an earlier build's downloads), unless ``target`` has a file of that name."""
    if link.is_symlink():
        if link.resolve() == target:
            return
        link.unlink()
    elif link.is_dir():
        for entry in link.iterdir():
            if not (target / entry.name).exists():
                shutil.move(str(entry), str(target / entry.name))
        shutil.rmtree(link)
    elif link.exists():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target, target_is_directory=True)


def link_data(book: Book, configured: str, frameworks: Iterable[str]) -> Path:
    """Make ``../data`` of the running notebooks the book's download folder: the ``data``
    beside each framework's chapters (``_build/eval/<fw>/data``), and beside the frameworks'
    folders for the pages at the book's root. Returns the folder."""
    target = data_folder(book, configured).resolve()
    target.mkdir(parents=True, exist_ok=True)
    for link in [book.layout.eval / "data", *(book.layout.eval / fw / "data" for fw in frameworks)]:
        _link(link, target)
    return target
