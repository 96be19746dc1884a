"""Command line: ``polybook build|check|serve|env|cache|freeze|lab|worker``; it parses the
arguments and calls the command (:mod:`polybook.commands.build`) or the stage."""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from polybook.commands import build as commands
from polybook.config import BookConfig, find_book_root, load_config
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.environments.prepare import ensure_all
from polybook.layout import envs_root
from polybook.pipeline.request import TARGETS, BuildRequest

logger = logging.getLogger("polybook")


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as an interrupt: jobs are cancelled, finished results kept."""


def _tabs(config: BookConfig, tab: str) -> tuple[str, ...]:
    if tab in ("", "all"):
        return config.tabs
    names = tuple(t.strip() for t in tab.split(",") if t.strip())
    unknown = [n for n in names if n not in config.tabs]
    if unknown:
        message = f"unknown tab {unknown[0]!r} (book tabs: {', '.join(config.tabs)})"
        raise PolybookError(Location("--tab"), message, "cli")
    return names


def _common(parser: argparse.ArgumentParser, top: bool) -> None:
    """Options accepted before and after the subcommand (``polybook build html --root X``)."""
    default = None if top else argparse.SUPPRESS
    parser.add_argument("--root", default=default, help="book root (the folder with config.ini)")
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default, help="only warnings and errors"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="polybook", description=__doc__)
    _common(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build the book")
    _common(build, top=False)
    build.add_argument("target", choices=list(TARGETS), help="what to build")
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
    build.add_argument("--strict", action="store_true", help="warnings fail the build")
    build.add_argument("--executor", choices=["local", "dask"], default="", help="where to run")
    build.add_argument("--scheduler", default="", help="the Dask scheduler, tcp://HOST:PORT")
    check = sub.add_parser("check", help="check the sources without executing anything")
    _common(check, top=False)
    check.add_argument("--tab", default="", help="framework(s) to check, or 'all'")
    env = sub.add_parser("env", help="framework environments")
    _common(env, top=False)
    env.add_argument("action", choices=["setup", "kernels"])
    env.add_argument("--tab", default="", help="framework(s), default: the book's tabs")
    env.add_argument("--device", choices=["auto", "cpu", "cuda"], default="")
    env.add_argument("--user", action="store_true", help="kernels: into the user's Jupyter path")
    env.add_argument(
        "--no-verify",
        action="store_true",
        help="setup: trust environments that look set up (skip importing each framework)",
    )
    freeze = sub.add_parser("freeze", help="commit a GPU host's outputs of pages in _freeze/")
    _common(freeze, top=False)
    freeze.add_argument("pages", nargs="*", help="the pages whose outputs to freeze")
    freeze.add_argument("--all", action="store_true", help="every page")
    freeze.add_argument("--tab", default="", help="framework(s), default: the book's tabs")
    cache = sub.add_parser("cache", help="the execution cache")
    _common(cache, top=False)
    cache.add_argument("action", choices=["clear"])
    lab = sub.add_parser("lab", help="JupyterLab on the book: pages open as notebooks")
    _common(lab, top=False)
    lab.add_argument("--tab", default="", help="framework whose kernel pages open with")
    lab.add_argument("--port", type=int, default=0, help="default: JupyterLab's (8888, or next)")
    serve = sub.add_parser("serve", help="build, serve on 127.0.0.1, rebuild on every save")
    _common(serve, top=False)
    serve.add_argument("--tab", default="", help="framework(s) to build, or 'all'")
    serve.add_argument(
        "--port", type=int, default=0, help="default: [html] serve_port, else the first free"
    )
    worker = sub.add_parser("worker", help="run a Dask cluster's notebooks on this host")
    _common(worker, top=False)
    worker.add_argument("--scheduler", required=True, help="the Dask scheduler, tcp://HOST:PORT")
    worker.add_argument("--nthreads", type=int, default=0, help="notebooks at once (CPU count)")
    worker.add_argument("--gpus", type=int, default=None, help="GPUs to offer (default: all)")
    worker.add_argument("--envs-dir", default="", help="where the environments are set up")
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, str]:
    overrides = {}
    if getattr(args, "jobs", 0):
        if args.jobs < 0:
            raise PolybookError(Location("--jobs"), "must be 0 (the CPU count) or more", "cli")
        overrides["build.jobs"] = str(args.jobs)
    if getattr(args, "device", ""):
        overrides["build.device"] = args.device
    if getattr(args, "strict", False):
        overrides["build.strict"] = "true"
    if getattr(args, "executor", ""):
        overrides["build.executor"] = args.executor
    if args.command == "build" and args.scheduler:
        overrides["build.dask_scheduler"] = args.scheduler
    return overrides


def _root(args: argparse.Namespace) -> Path:
    if args.root is None:
        return find_book_root(Path.cwd())
    root = Path(args.root)
    if not (root / "config.ini").is_file():
        message = f"no config.ini in {root.resolve()}: --root names the folder that holds it"
        raise PolybookError(Location(str(root)), message, "config")
    return root


def run(args: argparse.Namespace, reporter: Reporter | None = None) -> int:
    """Run the command ``args`` name; its problems go to ``reporter`` (a new one if None)."""
    if args.command == "worker":  # a host of a cluster: no book here
        from polybook.execution.dask_worker import start_worker

        return start_worker(args.scheduler, args.nthreads, args.envs_dir, args.gpus)
    config = load_config(_root(args), _overrides(args))
    reporter = reporter or Reporter()
    reporter.suppressed = frozenset(config.suppress_warnings)
    reporter.forward(config.ignored)
    tabs = _tabs(config, getattr(args, "tab", ""))
    if args.command == "check":
        from polybook.commands.check import check_book

        check_book(config, tabs, reporter)
        return commands.finish(reporter, strict=True)
    if args.command == "env" and args.action == "kernels":
        from polybook.authoring.lab import install_user_kernels

        if not args.user:
            kernels = envs_root(config.envs_dir) / "kernels"
            ensure_all(config, tabs)
            print(f"the kernels are in {kernels}; --user installs them for any Jupyter")
            return 0
        for place in install_user_kernels(config, tabs):
            print(f"installed {place.name} in {place}")
        return 0
    if args.command == "env":
        ensure_all(config, tabs, verify=not args.no_verify)
        return 0
    if args.command == "lab":
        from polybook.authoring.lab import run_lab

        return run_lab(config, tabs, args.port, args.lab_options)
    if args.command == "serve":
        from polybook.commands.serve import serve

        build = ["build", "html", "--tab", args.tab or "all", "--root", str(config.root)]
        build += ["--quiet"] if args.quiet else []
        return serve(config, lambda found: run(_parser().parse_args(build), found), args.port)
    if args.command == "freeze" and not args.pages and not args.all:
        raise PolybookError(Location("polybook freeze"), "name the pages, or --all", "cli")
    with commands.locked(config):
        if args.command == "freeze":
            pages = None if args.all else commands.resolve_pages(config, args.pages)
            return commands.freeze(config, tabs, pages, reporter)
        if args.command == "cache":
            return commands.clear_cache(config)
        request = BuildRequest(args.target, tabs, commands.resolve_pages(config, args.pages))
        return commands.build(request, config, reporter, args.report)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    command = getattr(args, "command", "")
    args.lab_options = extra if command == "lab" else []  # passed on to JupyterLab
    if extra and command != "lab" and (command != "build" or any(e.startswith("-") for e in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra and command == "build":
        args.pages = [*args.pages, *extra]  # pages given after options
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logger.setLevel(logging.WARNING if args.quiet else logging.INFO)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return run(args)
    except PolybookError as err:
        for diag in err.diagnostics:
            print(f"polybook: {diag}", file=sys.stderr)
        return 1
    except OSError as exc:  # an unwritable _build/, a full disk: say which file
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"polybook: {where}{exc.strerror or exc} [polybook.io]", file=sys.stderr)
        return 1
    except Terminated:
        print("polybook: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("polybook: interrupted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def entry() -> None:
    """The ``polybook`` command: :func:`main`; then, where nothing else runs, the process ends
    at once (after the exit handlers): what is left is freeing memory that the system frees
    anyway, a tenth of a second after a build."""
    status = main()
    if threading.active_count() == 1:
        atexit._run_exitfuncs()  # what an ordinary exit runs first
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    entry()
