"""``polybook freeze PAGE…``: the outputs of a GPU host's last build of those pages, written
into ``_freeze/`` to be committed (see :mod:`polybook.execution.frozen_outputs`)."""

from __future__ import annotations

import logging
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.environments import devices
from polybook.execution.cache import CacheKey
from polybook.execution.frozen_outputs import FrozenOutputs
from polybook.layout import FREEZE_DIR
from polybook.library.stage import build_library
from polybook.library.usage import LibraryUsage
from polybook.meta import notebook_meta
from polybook.nb import reads
from polybook.source.model import SourceRequest
from polybook.source.stage import read_sources

logger = logging.getLogger("polybook")


def _last_run(config: BookConfig, path: str, fw: str, code: str) -> NotebookNode | str:
    """The last build's run of ``path`` to freeze, or why there is none."""
    executed = config.layout.executed(path, fw)
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
    sources = read_sources(SourceRequest(tabs), config.book, config.build, reporter)
    library = (
        build_library(sources, config.book, config.library, reporter, write=False)
        if sources
        else None
    )
    if library is None or reporter.errors:
        return []
    notebooks, libraries = library.notebooks, library.blocks  # as the build runs them
    frozen = FrozenOutputs(config.root)
    written: list[Path] = []
    for fw in tabs:
        usage = LibraryUsage.of(config.book, fw, libraries.get(fw, []))
        for path, nb in notebooks.get(fw, []):
            if (pages is not None and path not in pages) or not any(
                c.cell_type == "code" for c in nb.cells
            ):
                continue
            if not devices.device_dependent(nb):
                logger.info(
                    "%s [%s]: not frozen: its outputs do not depend on the device", path, fw
                )
                continue
            code = CacheKey.of(nb, fw, usage.key(nb), config.html.figure_format).digest
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
