"""``polybook build``'s arguments, and the ``config.ini`` values that the command line's
options stand for (``--jobs`` is ``[build] jobs``; each key of an executor's section is an
option too: ``--scheduler`` is ``[executor-dask] scheduler``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

from polybook.config.executors import Registered, executor_keys, registered
from polybook.config.schema import Key
from polybook.diagnostics import Location, PolybookError
from polybook.output import Output, by_name
from polybook.pipeline.registry import OUTPUTS


class Executors:
    """The registered executors' names (those ``chosen``), read when the arguments are (a
    plugin's too)."""

    def __init__(self, chosen: Callable[[Registered], bool] = lambda entry: True) -> None:
        self.chosen = chosen

    def __contains__(self, name: object) -> bool:
        return name in list(self)

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, entry in registered().items() if self.chosen(entry)])


def add_executor_options(
    parser: argparse.ArgumentParser, read: Callable[[Key], bool] = lambda key: True
) -> None:
    """An option for each key (those ``read``) of the executors' sections, with its help:
    ``--<key>``, or ``--<executor>-<key>`` where an option has that name already. Its value
    is checked as if written in ``config.ini`` (:func:`config_overrides`)."""
    for name, entry in registered().items():
        for key in filter(read, entry.keys):
            flag = key.name.replace("_", "-")
            shown = key.help.replace("`", "").replace("%", "%%")
            dest, said = f"{key.section}.{key.name}", f"{shown} ([{key.section}] {key.name})"
            for option in (f"--{flag}", f"--{name}-{flag}"):
                try:
                    parser.add_argument(option, dest=dest, metavar=key.name.upper(), help=said)
                    break
                except argparse.ArgumentError:  # taken: by the command's, or another's
                    continue


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
        choices=Executors(),  # read at parse time: a registered executor is accepted
        default="",
        help="where notebooks run (none: only from the execution cache)",
    )
    add_executor_options(build)
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
    for key in executor_keys():
        given = getattr(args, f"{key.section}.{key.name}", None)
        if given is not None:
            overrides[f"{key.section}.{key.name}"] = given
    for tolerance in ("rtol", "atol"):
        if getattr(args, tolerance, None) is not None:
            overrides[f"drift.{tolerance}"] = str(getattr(args, tolerance))
    return overrides
