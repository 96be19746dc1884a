"""``polybook build``'s arguments, and the ``config.ini`` values that the command line's
options stand for (``--jobs`` is ``[build] jobs``)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from polybook.config.executors import registered
from polybook.diagnostics import Location, PolybookError
from polybook.output import Output, by_name
from polybook.pipeline.registry import OUTPUTS


class _Executors:
    """The registered executors' names, read when the arguments are (a plugin's too)."""

    def __contains__(self, name: object) -> bool:
        return name in registered()

    def __iter__(self) -> Iterator[str]:
        return iter(registered())


def add_build_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    outputs: tuple[Output, ...] = OUTPUTS,
) -> argparse.ArgumentParser:
    """``polybook build``'s arguments, its targets ``outputs`` (``args.outputs`` by name);
    returns its parser."""
    build = sub.add_parser("build", help="build the book")
    build.add_argument("target", choices=[o.name for o in outputs], help="what to build")
    build.set_defaults(outputs=by_name(outputs))
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
    build.add_argument(
        "--trust",
        action="store_true",
        help="the book's own code may run though nothing executes (its Sphinx extensions)",
    )
    build.add_argument(
        "--executor",
        choices=_Executors(),  # read at parse time: a registered executor is accepted
        default="",
        help="where notebooks run (none: only from the execution cache)",
    )
    build.add_argument("--scheduler", default="", help="the Dask scheduler, tcp://HOST:PORT")
    return build


def config_overrides(args: argparse.Namespace) -> dict[str, str]:
    """The `section.key` values the options given stand for."""
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
    for tolerance in ("rtol", "atol"):
        if getattr(args, tolerance, None) is not None:
            overrides[f"drift.{tolerance}"] = str(getattr(args, tolerance))
    return overrides
