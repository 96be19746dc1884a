"""``polybook editions status`` (what each translation lags: a table, ``--json``, ``--html``,
and ``--fail-on`` for CI) and ``polybook editions sync PAGE…`` (record the source pages a
translation now follows)."""

from __future__ import annotations

import argparse
from pathlib import Path

from polybook.commands.build import finish, resolve_pages
from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.editions import KINDS
from polybook.fsutil import write_atomic


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    editions = sub.add_parser("editions", help="what each translation of the book lags")
    editions.add_argument("action", choices=["status", "sync"])
    editions.add_argument("pages", nargs="*", help="sync: the pages now in step with the source")
    editions.add_argument("--json", default="", help="status: write the report as JSON here")
    editions.add_argument("--html", default="", help="status: write one offline HTML page here")
    editions.add_argument(
        "--fail-on",
        default="",
        help=f"status: fail on pages that are any of {', '.join(KINDS)} (comma-separated)",
    )
    return editions


def editions_command(args: argparse.Namespace, config: BookConfig, reporter: Reporter) -> int:
    from polybook.editions.report import table, to_html, to_json
    from polybook.editions.status import status, sync

    if args.action == "sync":
        pages = resolve_pages(config, args.pages) or frozenset()
        if not pages:
            where = Location("polybook editions sync")
            reporter.error(Diagnostic(where, "name the pages", "cli", "error"))
        for page in sync(config, sorted(pages)):
            print(f"synced {page}")
        return finish(reporter, strict=False)
    wanted = {k.strip() for k in args.fail_on.split(",") if k.strip()}
    unknown = wanted - set(KINDS)
    if unknown:
        message = f"--fail-on: unknown {', '.join(sorted(unknown))} (one of {', '.join(KINDS)})"
        reporter.error(Diagnostic(Location("--fail-on"), message, "cli", "error"))
        return finish(reporter, strict=False)
    found = status(config, reporter)
    print(table(found), end="")
    if args.json:
        write_atomic(Path(args.json), to_json(found))
    if args.html:
        write_atomic(Path(args.html), to_html(found))
    for edition in found:
        for row in edition.pages:
            kinds = sorted(wanted & set(row.kinds()))
            if kinds:
                where = Location(f"{edition.translation}: {row.page}")
                reporter.error(Diagnostic(where, ", ".join(kinds), "editions", "error"))
    return finish(reporter, strict=False)
