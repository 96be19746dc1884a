"""Command line: ``polybook build eval|lib|html``, ``polybook env setup``, ``polybook cache``."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from polybook import frameworks, state
from polybook.config import BookConfig, load_config
from polybook.diagnostics import PolybookError, Reporter
from polybook.execution import envs
from polybook.fsutil import write_atomic
from polybook.paths import SOURCE_ROOT

logger = logging.getLogger("polybook")


def _tabs(config: BookConfig, tab: str) -> tuple[str, ...]:
    if tab in ("", "all"):
        return config.tabs
    names = tuple(t.strip() for t in tab.split(",") if t.strip())
    unknown = [n for n in names if n not in config.tabs]
    if unknown:
        raise SystemExit(
            f"polybook: unknown tab {unknown[0]!r} (book tabs: {', '.join(config.tabs)})"
        )
    return names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="polybook", description=__doc__)
    parser.add_argument("--root", default=".", help="book root (the folder with config.ini)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build the book")
    build.add_argument("target", choices=["lib", "eval", "html"])
    build.add_argument("pages", nargs="*", help="execute only these pages (default: all)")
    build.add_argument("--tab", default="", help="framework(s) to build, or 'all'")
    build.add_argument("--jobs", type=int, default=0, help="notebooks run at once")
    build.add_argument(
        "--device",
        choices=["auto", "cpu", "cuda"],
        default="",
        help="requirement set for the environments",
    )
    build.add_argument("--report", default="", help="write a JSON summary of the build here")
    env = sub.add_parser("env", help="framework environments")
    env.add_argument("action", choices=["setup"])
    env.add_argument("--tab", default="", help="framework(s), default: the book's tabs")
    env.add_argument("--device", choices=["auto", "cpu", "cuda"], default="")
    cache = sub.add_parser("cache", help="the execution cache")
    cache.add_argument("action", choices=["clear"])
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, str]:
    overrides = {}
    if getattr(args, "jobs", 0):
        overrides["build.jobs"] = str(args.jobs)
    if getattr(args, "device", ""):
        overrides["build.device"] = args.device
    return overrides


def run(args: argparse.Namespace) -> int:
    config = load_config(Path(args.root), _overrides(args))
    reporter = Reporter(suppressed=frozenset(config.suppress_warnings))
    for diag in config.ignored:
        reporter.warn(diag.location, diag.message, diag.subtype)
    if args.command == "cache":
        from polybook.execution.cache import ExecutionCache

        count = ExecutionCache(config.build_dir / "cache" / "exec").clear()
        state.forget(config)
        print(f"removed {count} cached notebooks")
        return 0
    tabs = _tabs(config, args.tab)
    if args.command == "env":
        envs.ensure_all(tabs, config.device, config.envs_dir)
        return 0
    device = envs.resolve_device(config.device)
    command = json.dumps([args.target, tabs, sorted(args.pages), device, envs.host_gpus()])
    pins = [SOURCE_ROOT / frameworks.get(fw).requirements(device) for fw in tabs]
    inputs = state.fingerprint(config, command, pins)
    outputs = {"html": ["html/index.html"], "eval": ["eval"], "lib": []}[args.target]
    if state.unchanged(config, inputs, outputs):
        logger.info("nothing changed since the last build")
        _write_report(args, {"ran": [], "cached": 0, "failed": 0, "unchanged": True})
        return 0
    code = _build(args, config, tabs, reporter)
    if code == 0:
        state.record(config, inputs)
    return code


def _write_report(args: argparse.Namespace, summary: dict[str, object]) -> None:
    if getattr(args, "report", ""):
        write_atomic(Path(args.report), json.dumps(summary, indent=1))


def _build(
    args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...], reporter: Reporter
) -> int:
    from polybook.build import build_eval, build_html, build_library, split_book
    from polybook.source.book import BookInvalid, load_book, resolve_sources

    try:
        book = load_book(config, reporter)
    except BookInvalid:
        return _finish(reporter)
    notebooks = split_book(book, tabs, reporter)
    if reporter.errors:
        return _finish(reporter)
    libraries = build_library(config, notebooks, reporter)
    if args.target == "lib":
        return _finish(reporter)
    pages = set(resolve_sources(config, args.pages)) if args.pages else None
    if config.eval_notebook:
        report = build_eval(config, notebooks, libraries, reporter, pages)
        executed = report.executed
        _write_report(
            args,
            {
                "ran": report.ran,
                "cached": len(report.cached),
                "failed": len(report.failed),
                "jobs": config.effective_jobs,
            },
        )
        logger.info(
            "executed %d notebooks, %d from the cache, %d failed",
            len(report.ran),
            len(report.cached),
            len(report.failed),
        )
    else:
        executed = {(p, fw): nb for fw, nbs in notebooks.items() for p, nb in nbs}
    if args.target == "html":
        out = build_html(config, book, tabs, executed, reporter)
        logger.info("site written to %s", out / "index.html")
    return _finish(reporter)


def _finish(reporter: Reporter) -> int:
    errors = reporter.errors
    if errors:
        print(f"polybook: {len(errors)} error(s):", file=sys.stderr)
        for diag in errors:
            print(f"  {diag}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra and (getattr(args, "command", "") != "build" or any(e.startswith("-") for e in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra:
        args.pages = [*args.pages, *extra]  # pages given after options
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logger.setLevel(logging.WARNING if args.quiet else logging.INFO)
    try:
        return run(args)
    except PolybookError as err:
        print(f"polybook: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("polybook: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
