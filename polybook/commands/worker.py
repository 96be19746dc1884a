"""``polybook worker``: this host becomes a worker of an executor that has workers
(``Registered.worker``: Dask's). Its section's values (``[executor-dask] scheduler``) are
the command line's options, over those of the book it runs in, if any."""

from __future__ import annotations

import argparse
import importlib
from typing import cast

from polybook.config import BookConfig
from polybook.config.executors import Registered, capabilities, registered
from polybook.config.load import COMMAND_LINE
from polybook.config.schema import BadValue, Section
from polybook.diagnostics import Location, PolybookError
from polybook.execution.executors.protocol import WorkerStart


def start_worker(args: argparse.Namespace, config: BookConfig | None) -> int:
    """Start the worker ``args`` ask for (``config``: the book it runs in, None outside
    one); returns its exit status where it returns at all."""
    name = worker_of(args.executor, config)
    entry = registered()[name]
    settings = worker_settings(name, entry, args, config)
    start = cast("WorkerStart", importlib.import_module(entry.worker).start_worker)
    return start(settings, args.nthreads, args.envs_dir, args.gpus)


def worker_of(asked: str, config: BookConfig | None) -> str:
    """The executor whose worker starts: the one ``asked``, else the book's where it has
    workers, else the first registered that has."""
    if asked:
        return asked
    if config is not None and capabilities(config.build.executor).worker:
        return config.build.executor
    return next(name for name, entry in registered().items() if entry.worker)


def worker_settings(
    name: str, entry: Registered, args: argparse.Namespace, config: BookConfig | None
) -> Section | None:
    """The executor's section: the book's with the options over it (the loader checked
    them), or, outside a book, the options' values checked here over the defaults."""
    if config is not None:
        return config.executor_settings.get(name) or entry.settings()
    if entry.section is None:
        return None
    values = {}
    for key in entry.keys:
        given = getattr(args, f"{key.section}.{key.name}", None)
        if given is None:
            continue
        try:
            values[key.name] = key.parse(given)
        except BadValue as exc:
            where = Location(COMMAND_LINE)
            raise PolybookError(where, f"[{key.section}] {key.name}: {exc}", "config") from None
    return entry.section(**values)
