"""``polybook build`` (and ``freeze``, ``cache clear``) around the stages: the build folder's
lock, the pages named on the command line, the check that nothing changed since the last
build, the report, and the exit status."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Location, PolybookError, Reporter, raise_all
from polybook.fsutil import exclusive, write_atomic
from polybook.pipeline import state
from polybook.pipeline.request import BuildRequest

logger = logging.getLogger("polybook")


def locked(config: BookConfig) -> AbstractContextManager[None]:
    """The build folder's lock: a second build on the same tree waits for the first."""
    lock = config.layout.lock

    def waiting(holder: str) -> None:
        print(f"polybook: waiting for the build that holds {lock} ({holder})", file=sys.stderr)

    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.touch()
    except OSError as exc:
        message = f"the build folder is not writable: {exc.strerror}"
        raise PolybookError(Location(str(config.build_dir)), message, "io") from exc
    return exclusive(lock, on_wait=waiting)


def resolve_pages(config: BookConfig, names: Sequence[str]) -> frozenset[str] | None:
    """Page paths given on the command line, relative to the book root (None: none given);
    each must be a page of the book (every one that is not is reported at once)."""
    if not names:
        return None
    from polybook.source.book import source_files

    pages = set(source_files(config.root, config.build))
    found: set[str] = set()
    errors: list[PolybookError] = []
    for name in names:
        path = Path(name)
        full = Path(os.path.abspath(path if path.is_absolute() else Path.cwd() / path))
        if not full.is_relative_to(config.root):  # named through a link to the book
            full = full.resolve()
        if not full.is_relative_to(config.root):
            errors.append(PolybookError(Location(name), "not inside the book", "cli"))
            continue
        page = full.relative_to(config.root).as_posix()
        if page not in pages:
            why = "no such file" if not full.exists() else "not a page of the book"
            message = f"{why}: the pages are the files [build] notebooks names, less exclusions"
            errors.append(PolybookError(Location(name), message, "cli"))
        found.add(page)
    raise_all(errors)
    return frozenset(found)


def finish(reporter: Reporter, strict: bool) -> int:
    """Exit status: 1 on errors, or on warnings when ``strict``; lists them on stderr."""
    problems: list[Diagnostic] = reporter.errors
    if strict:
        problems = [*problems, *reporter.warnings]
    if not problems:
        return 0
    kinds = "error(s)" if reporter.errors else "warning(s), and warnings are errors here"
    print(f"polybook: {len(problems)} {kinds}:", file=sys.stderr)
    for diag in problems:
        print(f"  {diag}", file=sys.stderr)
    return 1


def build(
    request: BuildRequest,
    config: BookConfig,
    reporter: Reporter,
    report: str = "",
    keeper: object = None,
    force: bool = False,
) -> int:
    """Run ``request``'s build unless nothing changed since the last successful one (then
    its warnings are given again) or ``force``; ``report`` names a JSON file for the
    summary, ``keeper`` what ``polybook serve`` holds between builds (the site's Sphinx
    process)."""
    inputs = state.build_inputs(config, request)
    reads = state.page_inputs(config, request)
    if not force and state.unchanged(config, inputs, state.outputs(config, request), reads):
        logger.info("nothing changed since the last build")
        reporter.forward(state.last_warnings(config))
        _write_report(report, {"ran": [], "cached": 0, "failed": 0, "unchanged": True})
        return finish(reporter, config.build.strict)
    from polybook.pipeline.graph import run_build  # the stages: imported only when there is work

    summary = run_build(request, config, reporter, keeper)
    _write_report(report, {**summary.to_json(), "jobs": config.effective_jobs})
    if not reporter.errors:
        state.record(config, request, inputs, reads, reporter.warnings)
    return finish(reporter, config.build.strict)


def freeze_command(
    config: BookConfig,
    tabs: tuple[str, ...],
    pages: frozenset[str] | None,
    reporter: Reporter,
    rekey: bool = False,
    status: bool = False,
) -> int:
    """``polybook freeze``: ``pages`` (None: every page) into ``_freeze/``; ``rekey``: the
    entries of an older key format stored under today's key instead; ``status``: the
    stale and missing entries listed, nothing written."""
    from polybook.commands.freeze_pages import freeze_pages, freeze_status, rekey_pages

    if status:
        freeze_status(config, tabs, reporter)
    elif rekey:
        rekey_pages(config, tabs, reporter)
    else:
        freeze_pages(config, tabs, set(pages) if pages is not None else None, reporter)
    return finish(reporter, config.build.strict)


def clear_cache(config: BookConfig) -> int:
    """``polybook cache clear``: the local execution cache emptied."""
    from polybook.execution.cache import ExecutionCache

    count = ExecutionCache(config.layout.exec_cache).clear()
    state.forget(config)
    print(f"removed {count} cached notebooks")
    return 0


def _write_report(path: str, summary: dict[str, object]) -> None:
    if path:
        write_atomic(Path(path), json.dumps(summary, indent=1))
