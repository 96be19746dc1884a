"""``polybook upgrade``: a framework's notebooks run in a side environment made from new
pins, beside the current one. The side environment has its own folder under the
environments' root and its own kernelspec; the side build keeps to ``_build/side/<name>/``
(its notebooks, its cache, no frozen outputs). The current environment, cache and site are
not touched. (The command runs the side build's stages: :mod:`polybook.commands.drift`.)"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import Book
from polybook.diagnostics import Location, PolybookError
from polybook.drift.model import Side
from polybook.drift.sides import RECORD
from polybook.environments import venvs
from polybook.environments.packages import resolved_versions
from polybook.frameworks import DEVICES
from polybook.fsutil import write_atomic

logger = logging.getLogger("polybook")


@dataclass(frozen=True)
class UpgradeRequest:
    """Run framework ``tab``'s notebooks (``pages``; None: all) with the pins of
    ``requirements``, as side build ``name``."""

    tab: str
    requirements: Path
    name: str
    pages: frozenset[str] | None = None


def side_environment(
    book: Book, extras: tuple[Path, ...], request: UpgradeRequest
) -> venvs.Environment:
    """The side environment of ``request``'s pins and the book's own packages (``extras``:
    its requirement files for the tab), in a folder named by their content (the same pins
    find the same environment)."""
    fw = book.framework(request.tab)
    pins = request.requirements.resolve()
    if not pins.is_file():
        message = "no such requirements file: --requirements names the new pins"
        raise PolybookError(Location(str(request.requirements)), message, "drift.upgrade")
    digest = hashlib.sha256(pins.read_bytes())
    for extra in extras:
        digest.update(b"\0" + extra.read_bytes())
    spec = replace(fw, cpu_requirements=str(pins), cuda_requirements=str(pins))
    root = book.envs.side(f"{request.tab}-{digest.hexdigest()[:12]}")
    return venvs.environment(spec, DEVICES[0], root, extras)


def set_up(env: venvs.Environment, request: UpgradeRequest) -> None:
    """Set ``request``'s side environment up where missing; a failure says how to retry."""
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


def keep(
    folder: Path,
    request: UpgradeRequest,
    env: venvs.Environment,
    executed: dict[tuple[str, str], NotebookNode],
) -> Side:
    """The side build of ``request`` run in ``env`` (its notebooks ``executed``), recorded
    in its ``folder`` with the versions of ``env``."""
    versions = {request.tab: resolved_versions(env.python)}
    record = {
        "name": request.name,
        "framework": request.tab,
        "requirements": str(request.requirements.resolve()),
        "environment": str(env.path),
        "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": versions,
    }
    write_atomic(folder / RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    pages = request.pages
    chosen = {k: nb for k, nb in executed.items() if pages is None or k[0] in pages}
    return Side(f"side build {request.name}", chosen, versions)
