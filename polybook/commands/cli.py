"""Command line: ``polybook new|build|check|linkcheck|serve|env|doctor|cache|freeze|diff|
upgrade|compat|baseline|editions|lab|worker``; it parses the arguments and runs the subcommand's
handler (:data:`polybook.commands.handlers.HANDLERS`)."""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import signal
import sys
import threading
from types import FrameType

from polybook.commands.arguments import Executors, add_build_parser, add_executor_options
from polybook.commands.editions import add_parser as add_editions_parser
from polybook.commands.handlers import HANDLERS
from polybook.config.executors import registered as registered_executors
from polybook.diagnostics import PolybookError, Reporter
from polybook.output import Output
from polybook.pipeline.registry import OUTPUTS, registered

logger = logging.getLogger("polybook")


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as an interrupt: jobs are cancelled, finished results kept."""


def _common(parser: argparse.ArgumentParser, top: bool) -> None:
    """Options accepted before and after the subcommand (``polybook build html --root X``)."""
    default = None if top else argparse.SUPPRESS
    parser.add_argument("--root", default=default, help="book root (the folder with config.ini)")
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default, help="only warnings and errors"
    )


def _drift_options(parser: argparse.ArgumentParser) -> None:
    """The options ``diff`` and ``upgrade`` share: where the reports go, what fails."""
    parser.add_argument("--tab", default="", help="framework(s), default: the book's tabs")
    parser.add_argument("--json", default="", help="write the records as JSON here")
    parser.add_argument("--html", default="", help="the HTML report (default: in _build/drift/)")
    parser.add_argument(
        "--fail-on",
        choices=["error", "warning", "change"],
        default="",
        help="exit 1 on new errors; on new errors or warnings; on any change beyond tolerance",
    )
    parser.add_argument("--rtol", type=float, default=None, help="[drift] rtol for this run")
    parser.add_argument("--atol", type=float, default=None, help="[drift] atol for this run")


def _drift_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``polybook diff``, ``upgrade`` and ``baseline``."""
    diff = sub.add_parser("diff", help="what changed in the outputs since a baseline")
    _common(diff, top=False)
    diff.add_argument(
        "base",
        nargs="?",
        default="",
        help="a saved baseline's NAME (default: the latest), side:NAME (a side build of"
        " `upgrade`) or git:REV (that revision's _freeze/)",
    )
    _drift_options(diff)
    upgrade = sub.add_parser(
        "upgrade", help="run a framework's notebooks with new pins beside its environment"
    )
    _common(upgrade, top=False)
    upgrade.add_argument("pages", nargs="*", help="only these pages (default: all)")
    upgrade.add_argument("--requirements", required=True, help="the new pins")
    upgrade.add_argument("--name", default="", help="the side build's name (default: the file's)")
    _drift_options(upgrade)
    compat = sub.add_parser(
        "compat", help="check every section against the newest releases and named targets"
    )
    _common(compat, top=False)
    compat.add_argument("--tab", default="", help="framework(s), default: the book's tabs")
    compat.add_argument(
        "--target", default="", help="only these targets (newest, a [compat] target's name)"
    )
    compat.add_argument(
        "--newly-failing", default="", help="write the sections that newly fail here (Markdown)"
    )
    baseline = sub.add_parser("baseline", help="keep the current outputs and versions")
    _common(baseline, top=False)
    baseline.add_argument("action", choices=["save", "list"])
    baseline.add_argument("name", nargs="?", default="", help="save: the baseline's name")
    baseline.add_argument("--tab", default="", help="framework(s), default: the book's tabs")


def _add_linkcheck(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    linkcheck = sub.add_parser(
        "linkcheck", help="build the site, then check its external links (where online)"
    )
    _common(linkcheck, top=False)
    linkcheck.add_argument("--tab", default="", help="framework(s) to build, or 'all'")
    linkcheck.add_argument("--strict", action="store_true", help="warnings fail the check")
    linkcheck.add_argument(
        "--timeout", type=float, default=15.0, help="seconds to wait for each server"
    )


def _starting(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``polybook new`` and ``polybook doctor``: what starts a book, and checks a host."""
    new = sub.add_parser("new", help="start a book that builds at once")
    new.add_argument("dir", help="the book's folder (new, or empty)")
    new.add_argument("--frameworks", default="pytorch", help="its tabs, e.g. pytorch,jax")
    new.add_argument("--ci", choices=["github"], default="", help="write a CI workflow")
    new.add_argument(
        "--gpu-runner", default="", help="--ci: a self-hosted runner's label to execute on"
    )
    doctor = sub.add_parser("doctor", help="what is installed, what is missing and its fix")
    _common(doctor, top=False)


def _parser(outputs: tuple[Output, ...] = OUTPUTS) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="polybook", description=__doc__)
    _common(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True)
    _common(add_build_parser(sub, outputs), top=False)
    check = sub.add_parser("check", help="check the sources without executing anything")
    _common(check, top=False)
    check.add_argument("--tab", default="", help="framework(s) to check, or 'all'")
    _add_linkcheck(sub)
    env = sub.add_parser("env", help="framework environments, their kernels, browser assets")
    _common(env, top=False)
    env.add_argument(
        "action",
        choices=["setup", "kernels", "assets"],
        help="setup: the framework environments; kernels: their Jupyter kernels; assets: the"
        " site's browser assets (MathJax, from npm)",
    )
    env.add_argument("--tab", default="", help="framework(s), default: the book's tabs")
    env.add_argument("--device", choices=["auto", "cpu", "cuda"], default="")
    env.add_argument("--user", action="store_true", help="kernels: into the user's Jupyter path")
    env.add_argument(
        "--no-verify",
        action="store_true",
        help="setup: trust environments that look set up (skip importing each framework)",
    )
    _starting(sub)
    freeze = sub.add_parser("freeze", help="commit the outputs of pages in _freeze/")
    _common(freeze, top=False)
    freeze.add_argument("pages", nargs="*", help="the pages whose outputs to freeze")
    freeze.add_argument("--all", action="store_true", help="every page")
    freeze.add_argument(
        "--rekey",
        action="store_true",
        help="store entries frozen with an older key format under today's key (checked"
        " against the pages first)",
    )
    freeze.add_argument(
        "--status",
        action="store_true",
        help="list the stale and missing entries, each with the smallest host that refreshes it",
    )
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
    _drift_parsers(sub)
    _common(add_editions_parser(sub), top=False)
    worker = sub.add_parser("worker", help="run a Dask cluster's notebooks on this host")
    _common(worker, top=False)
    worker.add_argument(
        "--executor",
        choices=Executors(lambda entry: bool(entry.worker)),
        default="",
        help="whose worker (default: the book's executor where it has workers, else dask)",
    )
    add_executor_options(worker, lambda key: "worker" in key.read_by)  # defaults: the book's
    worker.add_argument("--nthreads", type=int, default=0, help="notebooks at once (CPU count)")
    worker.add_argument("--gpus", type=int, default=None, help="GPUs to offer (default: all)")
    worker.add_argument("--envs-dir", default="", help="where the environments are set up")
    return parser


def run(args: argparse.Namespace, reporter: Reporter | None = None) -> int:
    """Run the command ``args`` name; its problems go to ``reporter`` (a new one if None)."""
    return HANDLERS[args.command](args, reporter)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: list[str] | None = None, outputs: tuple[Output, ...] | None = None) -> int:
    """``polybook``'s command line; ``outputs``: what ``polybook build`` can build (by
    default polybook's and the plugins')."""
    try:  # the plugins load first: a broken one is an error naming it
        outputs = registered() if outputs is None else outputs
        registered_executors()
    except PolybookError as err:
        if _command(argv) != "doctor":  # which lists what is wrong with each plugin
            return _failed(err)
        outputs = OUTPUTS
    parser = _parser(outputs)
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
        return _failed(err)
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


def _command(argv: list[str] | None) -> str:
    """The command ``argv`` (else the process's arguments) names, before they are parsed."""
    words = sys.argv[1:] if argv is None else argv
    return next((word for word in words if not word.startswith("-")), "")


def _failed(err: PolybookError) -> int:
    for diag in err.diagnostics:
        print(f"polybook: {diag}", file=sys.stderr)
    return 1


def entry() -> None:
    """The ``polybook`` command: :func:`main`; then, where nothing else runs, the process ends
    at once (after the exit handlers): what is left is freeing memory that the system frees
    anyway, a tenth of a second after a build."""
    from polybook.parallel import collect_for_builds

    collect_for_builds()
    status = main()
    if threading.active_count() == 1:
        atexit._run_exitfuncs()  # what an ordinary exit runs first
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    entry()
