"""The sides a comparison reads: the current build (``_build/eval``), a saved baseline, a
side build of ``polybook upgrade``, or another git revision's ``_freeze/``; each with the
package versions of the environment that made it."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import Book
from polybook.config.schema import EnvSettings
from polybook.diagnostics import Location, PolybookError
from polybook.drift.model import Side, Versions
from polybook.environments import devices, venvs
from polybook.environments.packages import canonical, resolved_versions
from polybook.execution.frozen_outputs import FrozenOutputs
from polybook.layout import FREEZE_DIR, Layout
from polybook.meta import notebook_meta
from polybook.nb import reads

RECORD = "provenance.json"  # beside a baseline's or a side build's notebooks
GIT, SIDE = "git:", "side:"
CURRENT = "the current build"


def read_eval(folder: Path, tabs: tuple[str, ...]) -> dict[tuple[str, str], NotebookNode]:
    """The executed notebooks under ``folder`` (``<framework>/<page>.ipynb``) of ``tabs``."""
    found: dict[tuple[str, str], NotebookNode] = {}
    for fw in tabs:
        for path in sorted((folder / fw).rglob("*.ipynb")):
            try:
                nb = reads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            page = path.relative_to(folder / fw).with_suffix(".md").as_posix()
            found[(notebook_meta(nb).source or page, fw)] = nb
    return found


def run_versions(notebooks: dict[tuple[str, str], NotebookNode]) -> dict[str, dict[str, str]]:
    """What the notebooks' runs recorded of their framework's version (``numpy 2.4.6``)."""
    found: dict[str, dict[str, str]] = {}
    for (_, fw), nb in notebooks.items():
        run = notebook_meta(nb).run
        name, _, version = (run.framework_version if run else "").partition(" ")
        if version:
            found.setdefault(fw, {})[canonical(name)] = version
    return found


@dataclass(frozen=True)
class Running:
    """What says which environment runs each tab now: ``[build] device``, the ``[env-<tab>]``
    sections, and each tab's extra requirement files (the book's own packages)."""

    device: str
    settings: Mapping[str, EnvSettings]
    extras: Mapping[str, tuple[Path, ...]]


def environment_versions(book: Book, running: Running, framework: str) -> dict[str, str]:
    """The packages of the environment that runs ``framework`` now (empty if none runs)."""
    settings = running.settings.get(framework)
    python = settings.python if settings is not None else ""
    if not python:
        try:
            device = devices.resolve_device(running.device)
            extras = running.extras[framework]
            env = venvs.book_environment(book, framework, device, book.envs, extras)
            python = str(env.python)
        except PolybookError:
            return {}
    return resolved_versions(Path(python))


def versions_of(
    book: Book, running: Running, notebooks: dict[tuple[str, str], NotebookNode]
) -> dict[str, dict[str, str]]:
    """Each framework's environment's packages, else what its notebooks' runs recorded."""
    recorded = run_versions(notebooks)
    frameworks = sorted({fw for _, fw in notebooks})
    return {
        fw: environment_versions(book, running, fw) or recorded.get(fw, {}) for fw in frameworks
    }


def current_build(book: Book, running: Running, tabs: tuple[str, ...]) -> Side:
    notebooks = read_eval(book.layout.eval, tabs)
    return Side(CURRENT, notebooks, versions_of(book, running, notebooks))


def _kept(folder: Path, label: str, tabs: tuple[str, ...]) -> Side:
    """A baseline or side build: its notebooks and the versions recorded beside them."""
    notebooks = read_eval(folder / "eval", tabs)
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        versions: Versions = {fw: dict(v) for fw, v in record.get("versions", {}).items()}
    except (OSError, ValueError, AttributeError):
        versions = run_versions(notebooks)
    return Side(label, notebooks, versions)


def saved_names(layout: Layout) -> list[str]:
    """The saved baselines, the latest first."""
    folder = layout.baselines
    found = [p for p in folder.glob(f"*/{RECORD}")] if folder.is_dir() else []
    return [p.parent.name for p in sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)]


def _git(root: Path, where: str, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except OSError as exc:
        raise PolybookError(Location(where), f"git does not run: {exc}", "drift.git") from exc
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        message = f"`git {' '.join(args)}` failed: {why[-1] if why else done.returncode}"
        raise PolybookError(Location(where), message, "drift.git")
    return done.stdout


def frozen_at(root: Path, revision: str, tabs: tuple[str, ...]) -> Side:
    """The ``_freeze/`` folder of git revision ``revision`` of the book at ``root``."""
    where = f"{GIT}{revision}"
    prefix = _git(root, where, "rev-parse", "--show-prefix").decode().strip()
    tree = f"{revision}:{prefix}{FREEZE_DIR}"
    archive = _git(root, where, "archive", "--format=tar", tree)
    notebooks: dict[tuple[str, str], NotebookNode] = {}
    digests: dict[tuple[str, str], tuple[str, ...]] = {}
    with tempfile.TemporaryDirectory(prefix="polybook-freeze-") as temp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(Path(temp) / FREEZE_DIR, filter="data")
        frozen = FrozenOutputs(Path(temp))
        for entry in frozen.entries():
            place = (str(entry.get("page", "")), str(entry.get("framework", "")))
            if place[1] in tabs and place[0]:
                notebooks[place] = frozen.as_notebook(entry)
                digests[place] = tuple(str(c.get("code", "")) for c in entry.get("cells", []))
    label = f"{FREEZE_DIR}/ at {revision}"
    return Side(label, notebooks, run_versions(notebooks), digests)


def resolve(book: Book, base: str, tabs: tuple[str, ...]) -> Side:
    """The side ``base`` names: ``NAME`` (a saved baseline; none: the latest),
    ``side:NAME`` (a side build) or ``git:REV`` (that revision's ``_freeze/``)."""
    if base.startswith(GIT):
        return frozen_at(book.root, base.removeprefix(GIT), tabs)
    layout = book.layout
    if base.startswith(SIDE):
        name = base.removeprefix(SIDE)
        folder = layout.side_build(name)
        if not (folder / RECORD).is_file():
            message = f"no side build named {name!r}: `polybook upgrade --name {name}` makes it"
            raise PolybookError(Location(base), message, "drift.base")
        return _kept(folder, f"side build {name}", tabs)
    names = saved_names(layout)
    if not base and not names:
        message = (
            "no baseline to compare with: save one with `polybook baseline save NAME` before"
            " you move a pin, or name `git:REV` or `side:NAME`"
        )
        raise PolybookError(Location("polybook diff"), message, "drift.base")
    name = base or names[0]
    if name not in names:
        known = ", ".join(names) or "none saved"
        message = f"no baseline named {name!r} (baselines: {known}; or `git:REV`, `side:NAME`)"
        raise PolybookError(Location(name), message, "drift.base")
    return _kept(layout.baselines / name, f"baseline {name}", tabs)
