"""The site's sources: the MyST pages, their cell data and output files, and resources.

Written into ``_build/site_src`` for Sphinx. A page whose inputs failed in this build may be
*kept*: its last good sources (and the output files they use) stay as they are, so that
Sphinx keeps its last good HTML.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from polybook.config import Book
from polybook.confine import Confinement
from polybook.diagnostics import Reporter
from polybook.fsutil import tree_files, write_atomic
from polybook.memo import Memo
from polybook.render.names import CELLS_SUFFIX, MAP_SUFFIX, OUTPUT_DIR
from polybook.render.page import Page

PAGE_SUFFIXES = (".md", CELLS_SUFFIX, MAP_SUFFIX)
Stamps = tuple[tuple[int, int] | None, ...]
# Each page written, by its object (pages are kept per content, see polybook.site.stage):
# the page and its files' stamps after. ``polybook serve`` writes again only the pages an
# edit made anew (or whose files changed on disk), not every page's JSON per edit.
WRITTEN: Memo[tuple[Page, Stamps]] = Memo(4096)


def page_files(srcdir: Path, docname: str) -> list[Path]:
    """A page's files in ``srcdir``: the MyST text, its cell data and its line map."""
    base = srcdir / docname
    return [base.with_name(base.name + suffix) for suffix in PAGE_SUFFIXES]


def keepable(srcdir: Path, stale: Collection[str]) -> set[str]:
    """The ``stale`` docnames that have sources from an earlier build to keep."""
    return {name for name in stale if all(p.is_file() for p in page_files(srcdir, name))}


def _image_uris(data: Any) -> Iterator[str]:
    """The output files (``_pb_outputs/…``) named in a page's cell data."""
    if isinstance(data, dict):
        if data.get("type") == "image" and isinstance(data.get("uri"), str):
            yield data["uri"].lstrip("/")
        for value in data.values():
            yield from _image_uris(value)
    elif isinstance(data, list):
        for value in data:
            yield from _image_uris(value)


def _used_outputs(cells_file: Path) -> set[str]:
    try:
        return set(_image_uris(json.loads(cells_file.read_text(encoding="utf-8"))))
    except (OSError, ValueError):
        return set()


def _write_pages(
    pages: Sequence[Page], srcdir: Path, keep: Collection[str]
) -> tuple[bool, set[Path], set[str]]:
    """Write the pages not kept; returns (changed, page files, output files in use)."""
    changed = False
    wanted: set[Path] = set()
    outputs: set[str] = set()
    for name in keep:
        kept = page_files(srcdir, name)
        wanted.update(kept)
        outputs |= _used_outputs(kept[1])
    for page in pages:
        if page.docname in keep:
            continue
        files = page_files(srcdir, page.docname)
        wanted.update(files)
        outputs.update(page.files)
        changed |= _write_page(page, files, srcdir)
    return changed, wanted, outputs


def _stamps(paths: Sequence[Path]) -> Stamps:
    found: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            found.append(None)
        else:
            found.append((stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def _write_page(page: Page, files: list[Path], srcdir: Path) -> bool:
    """Write a page's files unless this very page was written there and they are as it
    left them; whether any file changed."""
    targets = [*files, *(srcdir / name for name in page.files)]
    wrote = False

    def write(_: Reporter) -> tuple[Page, Stamps]:
        nonlocal wrote
        texts = (page.text, json.dumps(page.cells, indent=1, sort_keys=True))
        for target, data in zip(files, (*texts, json.dumps(page.lines.origin)), strict=True):
            wrote |= write_atomic(target, data)
        for name, raw in page.files.items():
            wrote |= write_atomic(srcdir / name, raw)
        return page, _stamps(targets)

    def same(kept: tuple[Page, Stamps]) -> bool:
        return kept[0] is page and kept[1] == _stamps(targets)

    WRITTEN.get(f"{id(page)}\0{files[0]}", write, Reporter(quiet=True), same)
    return wrote


def _prune(srcdir: Path, wanted: set[Path], outputs: set[str]) -> bool:
    """Remove pages no longer in the book and output files no page uses."""
    changed = False
    for page in srcdir.rglob("*.md"):
        if page in wanted:
            continue
        files = page_files(srcdir, page.relative_to(srcdir).as_posix().removesuffix(".md"))
        if files[2].is_file():  # one we wrote, not a resource
            for path in files:
                path.unlink(missing_ok=True)
            changed = True
    folder = srcdir / OUTPUT_DIR
    for path in folder.iterdir() if folder.is_dir() else ():
        if path.is_file() and f"{OUTPUT_DIR}/{path.name}" not in outputs:
            path.unlink()
            changed = True
    return changed


def write_sources(
    book: Book,
    resources: Sequence[str],
    pages: Sequence[Page],
    srcdir: Path,
    keep: Collection[str] = (),
) -> bool:
    """Write pages, cell data, output files and ``resources`` (the book's ``[build]
    resources``); drop pages no longer in the book.

    Pages named in ``keep`` are left as an earlier build wrote them, with their output
    files. Returns whether anything changed.
    """
    changed, wanted, outputs = _write_pages(pages, srcdir, keep)
    changed |= _prune(srcdir, wanted, outputs)
    confinement = book.confinement
    for resource in resources:
        source = book.root / resource
        if source.is_dir() and confinement.holds(source):
            target = srcdir / resource.strip("/")
            changed |= _sync_resource(source, target, confinement, wanted, target == srcdir)
    return changed


def _sync_resource(
    source: Path, target: Path, confinement: Confinement, pages: set[Path], is_root: bool
) -> bool:
    """Copy a resource folder's changed files, less the links that lead out of the book
    (the source stage reports them), and remove the copies of files it no longer has
    (unless the folder is the sources' root, which holds more)."""
    changed = False
    copied: set[str] = set()
    for name, path, stamp in tree_files(source, confinement.holds):  # no link out
        copy = os.path.join(target, name)
        copied.add(name)
        try:
            made = os.stat(copy)
            current = stamp is not None and (made.st_size, made.st_mtime_ns) == stamp[1:3]
        except OSError:
            current = False
        if not current:  # copies keep their source's time
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            shutil.copy2(path, copy)
            changed = True
    if is_root or not target.is_dir():
        return changed
    for name, path, _ in tree_files(target):
        if name in copied or OUTPUT_DIR in name.split("/") or Path(path) in pages:
            continue
        os.unlink(path)
        changed = True
    return changed
