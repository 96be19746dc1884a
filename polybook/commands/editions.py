"""``polybook editions status`` (what each translation lags: a table, ``--json``, ``--html``,
and ``--fail-on`` for CI) and ``polybook editions sync PAGE…`` (record the source pages a
translation now follows)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.commands.build import finish, resolve_pages
from polybook.config import BookConfig, load_config
from polybook.config.schema import Edition
from polybook.diagnostics import Diagnostic, Location, PolybookError, Reporter
from polybook.editions import KINDS
from polybook.fsutil import write_atomic

if TYPE_CHECKING:
    from polybook.editions.status import EditionStatus
    from polybook.nb import Notebooks


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


def _load(config: BookConfig, edition: Edition | None) -> tuple[str, BookConfig]:
    """The name and config of ``edition``, a book of its own (None: this book)."""
    if edition is None:
        return config.project.name, config
    if not (edition.root / "config.ini").is_file():
        message = f"edition {edition.root} is no book: it has no config.ini"
        raise PolybookError(Location("config.ini", edition.line), message, "editions")
    return edition.name, load_config(edition.root)


def _split(config: BookConfig, reporter: Reporter) -> Notebooks:
    from polybook.source.book import BookInvalid, load_book
    from polybook.source.split import split_book

    try:
        book = load_book(config.book, config.build, reporter)
    except BookInvalid:
        message = f"the edition at {config.root} does not read: see its errors above"
        where = Location(str(config.root / "config.ini"))
        raise PolybookError(where, message, "editions") from None
    return split_book(book, config.build.tabs, reporter, check=False)


def _status(config: BookConfig, reporter: Reporter) -> list[EditionStatus]:
    """Each translation against its source, the books read and split here."""
    from polybook.editions.status import EditionStatus, compare, pairs

    books = [(_load(config, source), _load(config, tr)) for source, tr in pairs(config.editions)]
    found = []
    for (source_name, source), (name, translation) in books:
        pages = compare(
            source.root,
            _split(source, reporter),
            translation.root,
            _split(translation, reporter),
        )
        found.append(EditionStatus(source_name, name, translation.project.lang, pages))
    return found


def editions_command(args: argparse.Namespace, config: BookConfig, reporter: Reporter) -> int:
    from polybook.editions.report import table, to_html, to_json
    from polybook.editions.status import sync

    if args.action == "sync":
        pages = resolve_pages(config, args.pages) or frozenset()
        if not pages:
            where = Location("polybook editions sync")
            reporter.error(Diagnostic(where, "name the pages", "cli", "error"))
        for page in sync(config.root, config.editions, sorted(pages)):
            print(f"synced {page}")
        return finish(reporter, strict=False)
    wanted = {k.strip() for k in args.fail_on.split(",") if k.strip()}
    unknown = wanted - set(KINDS)
    if unknown:
        message = f"--fail-on: unknown {', '.join(sorted(unknown))} (one of {', '.join(KINDS)})"
        reporter.error(Diagnostic(Location("--fail-on"), message, "cli", "error"))
        return finish(reporter, strict=False)
    found = _status(config, reporter)
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
