"""``polybook freeze PAGE…``: the outputs of a GPU host's last build of those pages, written
into ``_freeze/`` to be committed (see :mod:`polybook.execution.freeze`)."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from nbformat import NotebookNode

from polybook.alias_rewrite import rewrite_notebooks
from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.execution import devices
from polybook.execution.freeze import FREEZE_DIR, FrozenOutputs, code_key
from polybook.execution.usage import LibraryUsage
from polybook.library import extract_libraries
from polybook.library_aliases import with_aliases
from polybook.meta import notebook_meta
from polybook.nb import reads
from polybook.source.book import BookInvalid, load_book
from polybook.source.split import split_book

logger = logging.getLogger("polybook")


def _package_digest(config: BookConfig, fw: str) -> str:
    """The hash of the book's ``d2l/__init__.py``, as the execute stage keys it."""
    init = config.root / Path(config.library_for(fw).lib_file).parent / "__init__.py"
    return hashlib.sha256(init.read_bytes() if init.is_file() else b"").hexdigest()


def _last_run(config: BookConfig, path: str, fw: str, code: str) -> NotebookNode | str:
    """The last build's run of ``path`` to freeze, or why there is none."""
    executed = config.build_dir / "eval" / fw / (path.removesuffix(".md") + ".ipynb")
    build = f"build it on a GPU host first (`polybook build eval {path}`)"
    try:
        nb = reads(executed.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"no build has run it: {build}"
    meta = notebook_meta(nb)
    if meta.run is None:
        return f"its last run failed: {build}"
    if meta.code != code:
        return f"its code changed since the last build: {build}"
    if devices.rank(meta.run.device_class) <= devices.rank(devices.CPU):
        return f"its last run was on a CPU host: {build}"
    return nb


def freeze_pages(
    config: BookConfig, tabs: tuple[str, ...], pages: set[str] | None, reporter: Reporter
) -> list[Path]:
    """Freeze the device-dependent notebooks of ``pages`` (None: every page); returns the
    entries written."""
    try:
        book = load_book(config, reporter)
    except BookInvalid:
        return []
    notebooks = split_book(book, tabs, reporter)
    libraries = with_aliases(config, extract_libraries(notebooks, reporter), reporter)
    if reporter.errors:
        return []
    notebooks = rewrite_notebooks(config, notebooks, reporter)  # as the build runs them
    frozen = FrozenOutputs(config.root)
    written: list[Path] = []
    for fw in tabs:
        usage = LibraryUsage(libraries.get(fw, []), config.library_for(fw).lib_file)
        package = _package_digest(config, fw)
        for index, (path, nb) in enumerate(notebooks.get(fw, [])):
            if (pages is not None and path not in pages) or not any(
                c.cell_type == "code" for c in nb.cells
            ):
                continue
            if not devices.device_dependent(nb):
                logger.info(
                    "%s [%s]: not frozen: its outputs do not depend on the device", path, fw
                )
                continue
            code = code_key(nb, fw, usage.digest(nb, index) + package)
            executed = _last_run(config, path, fw, code)
            if isinstance(executed, str):
                reporter.warn(Location(path, 0, fw), f"not frozen: {executed}", "freeze")
                continue
            written.append(frozen.write(path, fw, executed))
    kept = frozen.collect() if frozen.folder.is_dir() else 0
    if not written:
        named = ", ".join(sorted(pages)) if pages else "polybook freeze --all"
        message = "nothing frozen: no notebook of these pages has a GPU host's run to freeze"
        reporter.error(PolybookError(Location(named), message, "freeze"))
    else:
        logger.info("froze %d notebooks into %s/ (%d image files)", len(written), FREEZE_DIR, kept)
    return written
