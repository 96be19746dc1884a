"""``polybook diff``, ``polybook upgrade`` and ``polybook baseline`` around the drift stage:
the sides read (an upgrade's side build run through the source, library and execution
stages), the comparison, its reports (terminal, HTML, JSON) and the exit status that
``--fail-on`` asks for."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from polybook.commands.build import finish, locked, resolve_pages
from polybook.config import BookConfig
from polybook.config.executors import side_executor
from polybook.diagnostics import Diagnostic, Location, PolybookError, Reporter
from polybook.drift.baseline import check_name, save_baseline, saved_baselines
from polybook.drift.model import DriftReport, Side
from polybook.drift.report_html import render_html
from polybook.drift.report_text import print_summary, to_json
from polybook.drift.sides import CURRENT, Running, current_build, resolve
from polybook.drift.stage import Comparison, compare_sides
from polybook.drift.upgrade import UpgradeRequest, keep, set_up, side_environment
from polybook.execution.inputs import Given
from polybook.execution.stage import build_eval
from polybook.fsutil import write_atomic
from polybook.library.stage import build_library
from polybook.pipeline.execution import execution
from polybook.source.model import SourceRequest
from polybook.source.stage import read_sources

logger = logging.getLogger("polybook")


def running(config: BookConfig, tabs: tuple[str, ...]) -> Running:
    """What says which environment runs each of ``tabs`` now."""
    extras = {fw: config.extra_requirements(fw) for fw in tabs}
    return Running(config.build.device, config.env_settings, extras)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "report"


def _report(
    drift: DriftReport, config: BookConfig, args: argparse.Namespace, reporter: Reporter, name: str
) -> int:
    """Write the reports, print the summary, and fail as ``--fail-on`` says."""
    html = Path(args.html) if args.html else config.layout.drift_reports / f"{_slug(name)}.html"
    html = html.resolve()
    write_atomic(html, render_html(drift, config.layout, html))
    if args.json:
        write_atomic(Path(args.json), json.dumps(to_json(drift), indent=1) + "\n")
    try:
        shown = html.relative_to(Path.cwd()).as_posix()
    except ValueError:
        shown = str(html)
    print_summary(drift, Console(file=sys.stdout), shown)
    for cell, change in drift.failing(args.fail_on):
        message = f"{change.kind}: {change.detail}"
        reporter.error(Diagnostic(cell.location, message, f"drift.{change.kind}", "error"))
    return finish(reporter, strict=False)


def _holds_notebooks(side: Side, tabs: tuple[str, ...]) -> None:
    """A located error when ``side`` holds no executed notebook of ``tabs``."""
    if not side.notebooks:
        hint = " (`polybook build eval` first)" if side.label == CURRENT else ""
        message = f"{side.label} holds no executed notebook of {', '.join(tabs)}{hint}"
        raise PolybookError(Location(side.label), message, "drift")


def compare_with(before: Side, after: Side, config: BookConfig, reporter: Reporter) -> DriftReport:
    if not set(before.notebooks) & set(after.notebooks):
        message = f"no page is in both {before.label} and {after.label}: nothing to compare"
        raise PolybookError(Location(after.label), message, "drift")
    return compare_sides(Comparison(before, after), config.drift, config.build.tabs, reporter)


def _diff(args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...], r: Reporter) -> int:
    current = current_build(config.book, running(config, tabs), tabs)
    _holds_notebooks(current, tabs)
    before = resolve(config.book, args.base, tabs)
    _holds_notebooks(before, tabs)
    drift = compare_with(before, current, config, r)
    return _report(drift, config, args, r, f"diff-{args.base or before.label}")


def side_build(
    request: UpgradeRequest,
    config: BookConfig,
    reporter: Reporter,
    extras: tuple[Path, ...] | None = None,
) -> Side | None:
    """Run ``request`` in its side environment (set up where missing); its notebooks and
    versions, or None where the pages do not read (the errors are in ``reporter``). Its
    notebooks' failures are not errors of this command: the comparison reports them.
    ``extras``: the book's own requirement files installed beside the pins (None: those of
    ``[build] requirements``; ``()`` where the pins hold them already)."""
    check_name(request.name, "side build")
    extras = config.extra_requirements(request.tab) if extras is None else extras
    env = side_environment(config.book, extras, request)
    tabs = (request.tab,)  # the pages first: a page that does not read waits for nothing
    sources = read_sources(SourceRequest(tabs, request.pages), config.book, config.build, reporter)
    library = (
        build_library(sources, config.book, config.library, reporter, write=False)
        if sources
        else None
    )
    if library is None or reporter.errors:
        return None
    set_up(env, request)
    side = replace(
        config,
        side=request.name,
        build=replace(config.build, cache="", executor=side_executor(config.build.executor)),
    )
    collected = Reporter(suppressed=reporter.suppressed, quiet=True)
    pages = set(request.pages) if request.pages is not None else None
    notebooks = {request.tab: library.notebooks.get(request.tab, [])}
    run = execution(side)
    report = build_eval(run, Given({request.tab: env}), notebooks, library.blocks, collected, pages)
    reporter.forward(d for d in collected.diagnostics if not d.subtype.startswith("exec"))
    if report.failed:
        logger.info("%d notebooks failed in the side environment", len(report.failed))
    return keep(side.layout.build, request, env, report.executed)


def _upgrade(
    args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...], r: Reporter
) -> int:
    if len(tabs) != 1 or not args.tab or args.tab == "all":
        raise PolybookError(Location("--tab"), "name the one framework to upgrade", "cli")
    pages = resolve_pages(config, args.pages)
    name = args.name or _slug(Path(args.requirements).stem)
    request = UpgradeRequest(tabs[0], Path(args.requirements), name, pages)
    with locked(config):
        current = current_build(config.book, running(config, tabs), tabs)
    chosen = {k: nb for k, nb in current.notebooks.items() if pages is None or k[0] in pages}
    before = Side(current.label, chosen, current.versions)
    _holds_notebooks(before, tabs)  # before the side build: it is what the report compares
    check_name(name, "side build")
    with locked(replace(config, side=name)):
        after = side_build(request, config, r)
    if after is None:
        return finish(r, strict=False)
    return _report(compare_with(before, after, config, r), config, args, r, f"upgrade-{name}")


def _baseline(args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...]) -> int:
    if args.action == "list":
        for saved in saved_baselines(config.layout):
            versions = ", ".join(
                f"{name} {found[name]}"
                for fw, found in sorted(saved.versions.items())
                for name in config.framework(fw).distributions
                if name in found
            )
            print(f"{saved.name}\t{saved.saved}\t{saved.notebooks} notebooks\t{versions}")
        return 0
    if not args.name:
        raise PolybookError(Location("polybook baseline save"), "name the baseline", "cli")
    saved = save_baseline(config.book, running(config, tabs), args.name, tabs)
    folder = config.layout.baselines / saved.name
    print(f"saved baseline {saved.name}: {saved.notebooks} notebooks, in {folder}")
    return 0


def diff_command(
    args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...], reporter: Reporter
) -> int:
    """``polybook diff`` as parsed in ``args``, holding the build folder's lock while the
    current build is read."""
    with locked(config):
        return _diff(args, config, tabs, reporter)


def upgrade_command(
    args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...], reporter: Reporter
) -> int:
    """``polybook upgrade``: a side build holds its own folder's lock, so that builds go on
    while it runs."""
    return _upgrade(args, config, tabs, reporter)


def baseline_command(args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...]) -> int:
    """``polybook baseline save|list``, holding the build folder's lock."""
    with locked(config):
        return _baseline(args, config, tabs)
