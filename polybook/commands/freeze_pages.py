"""``polybook freeze PAGE…``: the outputs of a GPU host's last build of those pages, written
into ``_freeze/`` to be committed (see :mod:`polybook.execution.frozen_outputs`) — with
``[build] freeze = all``, every notebook's; ``polybook freeze --status``: what is stale;
``polybook freeze --rekey``: entries of an older key format stored under today's key, once
checked against the pages (:mod:`polybook.execution.frozen_keys`)."""

from __future__ import annotations

import datetime
import json
import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.environments import devices
from polybook.execution.cache import CacheKey, gpus_wanted
from polybook.execution.frozen_keys import key_format, legacy_key, match
from polybook.execution.frozen_outputs import FrozenOutputs
from polybook.execution.output_noise import OutputFilter
from polybook.execution.plan import host_class
from polybook.layout import FREEZE_DIR
from polybook.library.canonical import KEY_FORMAT
from polybook.library.stage import build_library
from polybook.library.usage import LibraryUsage
from polybook.meta import notebook_meta
from polybook.nb import reads
from polybook.source.frozen import read_entry
from polybook.source.model import SourceRequest
from polybook.source.stage import read_sources

logger = logging.getLogger("polybook")


def _last_run(
    config: BookConfig, path: str, fw: str, code: str, any_host: bool
) -> NotebookNode | str:
    """The last build's run of ``path`` to freeze, or why there is none (``any_host``: a
    CPU host's run is frozen too)."""
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
    if not any_host and devices.rank(meta.run.device_class) <= devices.rank(devices.CPU):
        return f"its last run was on a CPU host: {build}"
    return nb


def _smaller_than_frozen(frozen: FrozenOutputs, path: str, fw: str, run: NotebookNode) -> str:
    """The device class of the entry ``run`` would replace when that entry is of the same
    code and a bigger class (a CPU host never replaces a GPU host's run); else ""."""
    entry, problem = read_entry(frozen.entry_path(path, fw))
    if problem or entry.get("code") != notebook_meta(run).code:
        return ""
    held = str(entry.get("run", {}).get("device_class", ""))
    ran = notebook_meta(run).run
    own = ran.device_class if ran else ""
    return held if devices.rank(held) > devices.rank(own) else ""


def _notebooks(
    config: BookConfig, tabs: tuple[str, ...], pages: set[str] | None, reporter: Reporter
) -> Iterator[tuple[str, str, NotebookNode, LibraryUsage]]:
    """The notebooks with code of ``pages`` (None: every page), as the build runs them, with
    their framework's library usage."""
    sources = read_sources(SourceRequest(tabs), config.book, config.build, reporter)
    library = (
        build_library(sources, config.book, config.library, reporter, write=False)
        if sources
        else None
    )
    if library is None or reporter.errors:
        return
    for fw in tabs:
        usage = LibraryUsage.of(config.book, fw, library.blocks.get(fw, []))
        for path, nb in library.notebooks.get(fw, []):
            if (pages is None or path in pages) and any(c.cell_type == "code" for c in nb.cells):
                yield path, fw, nb, usage


def freeze_pages(
    config: BookConfig, tabs: tuple[str, ...], pages: set[str] | None, reporter: Reporter
) -> list[Path]:
    """Freeze the notebooks of ``pages`` (None: every page): with ``[build] freeze =
    device`` the device-dependent ones a GPU host ran, with ``all`` every one; returns the
    entries written. Their outputs are stored as builds show them (without their
    framework's noise), so a freeze of what a build showed from ``_freeze/`` writes the
    same bytes."""
    frozen = FrozenOutputs(config.root)
    every = config.build.freeze == "all"
    written: list[Path] = []
    kept: list[Path] = []  # entries of the same run, left as they are
    for path, fw, nb, usage in _notebooks(config, tabs, pages, reporter):
        dependent = devices.device_dependent(nb)
        if not dependent and not every:
            logger.info("%s [%s]: not frozen: its outputs do not depend on the device", path, fw)
            continue
        code = CacheKey.of(nb, fw, usage.key(nb), config.html.figure_format)
        executed = _last_run(config, path, fw, code.digest, every)
        if isinstance(executed, str):
            reporter.warn(Location(path, 0, fw), f"not frozen: {executed}", "freeze")
            continue
        if notebook_meta(executed).key.startswith("frozen:"):  # shown from _freeze/ itself
            kept.append(frozen.entry_path(path, fw))
            continue
        bigger = _smaller_than_frozen(frozen, path, fw, executed) if dependent else ""
        if bigger:
            logger.info("%s [%s]: kept: _freeze/ holds a %s host's run", path, fw, bigger)
            kept.append(frozen.entry_path(path, fw))
            continue
        noise = config.book.framework(fw).output_noise
        OutputFilter.of(noise, config.build.keep_output).clean(executed)
        written.append(frozen.write(path, fw, executed, code))
    if reporter.errors:
        return []
    files = frozen.collect() if frozen.folder.is_dir() else 0
    if not written and not kept:
        named = ", ".join(sorted(pages)) if pages else "polybook freeze --all"
        host = "" if every else "a GPU host's "
        message = f"nothing frozen: no notebook of these pages has {host}run to freeze"
        reporter.error(PolybookError(Location(named), message, "freeze"))
    else:
        logger.info(
            "froze %d notebooks into %s/ (%d unchanged, %d image files)",
            len(written),
            FREEZE_DIR,
            len(kept),
            files,
        )
    return written


def _revision(root: Path) -> str:
    """The book's git commit (short), or "" outside git."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def rekey_pages(config: BookConfig, tabs: tuple[str, ...], reporter: Reporter) -> list[Path]:
    """Store every entry of an older key format whose key, made again as its Python made it,
    is that of its page today, under today's key; returns the entries written."""
    frozen = FrozenOutputs(config.root)
    revision = _revision(config.root)
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    written: list[Path] = []
    for path, fw, nb, usage in _notebooks(config, tabs, None, reporter):
        target = frozen.entry_path(path, fw)
        try:
            entry = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if key_format(entry) == KEY_FORMAT:
            continue
        figures = config.html.figure_format
        code = CacheKey.of(nb, fw, usage.key(nb), figures)
        found = match(entry, nb, (path, fw), code, legacy_key(nb, fw, usage, figures))
        if not found.shown:
            reporter.warn(found.where or Location(path, 0, fw), found.message, "freeze.stale")
            continue
        sources = f", from the sources at {revision}" if revision else ""
        note = f"re-keyed on {today} from key format 1 (Python {found.dialect}'s ast.dump){sources}"
        written.append(frozen.rekey(entry, nb, code, note))
    logger.info("re-keyed %d entries of %s/", len(written), FREEZE_DIR)
    return written


def freeze_status(config: BookConfig, tabs: tuple[str, ...], reporter: Reporter) -> list[str]:
    """``polybook freeze --status``: the notebooks whose entry in ``_freeze/`` is stale or
    missing (those ``[build] freeze`` stores), each with its framework and the smallest
    host that refreshes it; the lines printed."""
    frozen = FrozenOutputs(config.root)
    every = config.build.freeze == "all"
    figures = config.html.figure_format
    counts = {"current": 0, "stale": 0, "missing": 0}
    rows: list[tuple[str, str, str, str]] = []
    for path, fw, nb, usage in _notebooks(config, tabs, None, reporter):
        if not every and not devices.device_dependent(nb):
            continue
        entry, problem = read_entry(frozen.entry_path(path, fw))
        if problem:
            state = "missing" if not frozen.entry_path(path, fw).is_file() else "stale"
        else:
            code = CacheKey.of(nb, fw, usage.key(nb), figures)
            shown = match(entry, nb, (path, fw), code, legacy_key(nb, fw, usage, figures)).shown
            state = "current" if shown else "stale"
        counts[state] += 1
        if state != "current":
            rows.append((state, fw, path, host_class(gpus_wanted(nb))))
    lines = [", ".join(f"{n} {state}" for state, n in counts.items()) + f" ({FREEZE_DIR}/)"]
    if rows:
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines += [
            "  ".join(
                cell.ljust(width) for cell, width in zip(row, [*widths, 0], strict=True)
            ).rstrip()
            for row in sorted(rows, key=lambda r: (r[1], r[2]))
        ]
    for line in lines:
        print(line)
    return lines
