"""``polybook upgrade``: a framework's notebooks run in a side environment made from new
pins, beside the current one. The side environment has its own folder under the
environments' root and its own kernelspec; the side build keeps to ``_build/side/<name>/``
(its notebooks, its cache, no frozen outputs). The current environment, cache and site are
not touched."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.drift.baseline import check_name
from polybook.drift.model import Side
from polybook.drift.sides import RECORD
from polybook.environments import venvs
from polybook.environments.packages import resolved_versions
from polybook.execution.stage import build_eval
from polybook.frameworks import DEVICES
from polybook.fsutil import write_atomic
from polybook.library.stage import build_library
from polybook.source.model import SourceRequest
from polybook.source.stage import read_sources

logger = logging.getLogger("polybook")


@dataclass(frozen=True)
class UpgradeRequest:
    """Run framework ``tab``'s notebooks (``pages``; None: all) with the pins of
    ``requirements``, as side build ``name``."""

    tab: str
    requirements: Path
    name: str
    pages: frozenset[str] | None = None


def side_environment(config: BookConfig, request: UpgradeRequest) -> venvs.Environment:
    """The side environment of ``request``'s pins and the book's own packages, in a folder
    named by their content (the same pins find the same environment)."""
    fw = config.framework(request.tab)
    if not fw.declared:
        raise venvs.undeclared(fw)
    pins = request.requirements.resolve()
    if not pins.is_file():
        message = "no such requirements file: --requirements names the new pins"
        raise PolybookError(Location(str(request.requirements)), message, "drift.upgrade")
    extras = config.extra_requirements(request.tab)
    digest = hashlib.sha256(pins.read_bytes())
    for extra in extras:
        digest.update(b"\0" + extra.read_bytes())
    spec = replace(fw, requirement_files=tuple((device, str(pins)) for device in DEVICES))
    root = config.envs.side(f"{request.tab}-{digest.hexdigest()[:12]}")
    return venvs.environment(spec, DEVICES[0], root, extras)


def side_build(request: UpgradeRequest, config: BookConfig, reporter: Reporter) -> Side | None:
    """Run ``request`` in its side environment (set up where missing); its notebooks and
    versions, or None where the pages do not read (the errors are in ``reporter``). Its
    notebooks' failures are not errors of this command: the comparison reports them."""
    check_name(request.name, "side build")
    env = side_environment(config, request)
    tabs = (request.tab,)  # the pages first: a page that does not read waits for nothing
    sources = read_sources(SourceRequest(tabs, request.pages), config, reporter)
    library = (
        build_library(sources, config.book, config.library, reporter, write=False)
        if sources
        else None
    )
    if library is None or reporter.errors:
        return None
    if not venvs.is_ready(env):
        logger.info("setting up the side environment in %s", env.path)
    try:
        venvs.ensure(env)
    except PolybookError as err:  # its hint names the current environment's setup
        first, _, tail = err.diagnostic.message.partition("\n")
        message = (
            f"the side environment of {request.tab} could not be set up in {env.path} from"
            f" {request.requirements} (`polybook upgrade` again retries):\n{tail or first}"
        )
        raise PolybookError(err.location, message, "drift.upgrade") from err
    side = replace(
        config, side=request.name, build=replace(config.build, cache="", executor="local")
    )
    collected = Reporter(suppressed=reporter.suppressed, quiet=True)
    pages = set(request.pages) if request.pages is not None else None
    notebooks = {request.tab: library.notebooks.get(request.tab, [])}
    report = build_eval(side, notebooks, library.blocks, collected, pages, given={request.tab: env})
    reporter.forward(d for d in collected.diagnostics if not d.subtype.startswith("exec"))
    if report.failed:
        logger.info("%d notebooks failed in the side environment", len(report.failed))
    versions = {request.tab: resolved_versions(env.python)}
    record = {
        "name": request.name,
        "framework": request.tab,
        "requirements": str(request.requirements.resolve()),
        "environment": str(env.path),
        "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": versions,
    }
    folder = side.layout.build
    write_atomic(folder / RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    chosen = {k: nb for k, nb in report.executed.items() if pages is None or k[0] in pages}
    return Side(f"side build {request.name}", chosen, versions)
