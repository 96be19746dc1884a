"""Saved baselines (``polybook baseline save NAME``): the current build's executed notebooks
and each framework environment's resolved package versions, kept under
``_build/baselines/<name>/`` for ``polybook diff NAME``."""

from __future__ import annotations

import json
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from polybook.config import Book
from polybook.diagnostics import Location, PolybookError
from polybook.drift.sides import RECORD, Running, read_eval, saved_names, versions_of
from polybook.fsutil import write_atomic
from polybook.layout import BUILD_DIR, Layout

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(name: str, what: str) -> str:
    """``name`` when it can name a folder of ``_build/``; else a located error."""
    if not NAME.fullmatch(name):
        message = f"{name!r} cannot name a {what}: letters, digits, '.', '_' and '-'"
        raise PolybookError(Location(name), message, "drift.name")
    return name


@dataclass(frozen=True)
class SavedBaseline:
    name: str
    saved: str  # when, UTC
    notebooks: int
    versions: dict[str, dict[str, str]]


def save_baseline(book: Book, running: Running, name: str, tabs: tuple[str, ...]) -> SavedBaseline:
    """Keep the current build of ``tabs`` as baseline ``name`` (replacing one of that name
    whole, never half), with the versions of the environments ``running`` says run them."""
    check_name(name, "baseline")
    layout = book.layout
    notebooks = read_eval(layout.eval, tabs)
    if not notebooks:
        message = (
            f"nothing to save: no executed notebook of {', '.join(tabs)} here"
            " (`polybook build eval` first)"
        )
        raise PolybookError(Location(f"{BUILD_DIR}/eval"), message, "drift.baseline")
    made = SavedBaseline(
        name,
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        len(notebooks),
        versions_of(book, running, notebooks),
    )
    temp = layout.baselines / f".{name}.{uuid.uuid4().hex[:8]}"
    try:
        for fw in tabs:
            if (layout.eval / fw).is_dir():
                # symlinks: the shared download folder ([build] data) stays a link
                shutil.copytree(layout.eval / fw, temp / "eval" / fw, symlinks=True)
        record = {"name": name, "saved": made.saved, "versions": made.versions}
        write_atomic(temp / RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
        _swap(temp, layout.baselines / name)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return made


def _swap(new: Path, target: Path) -> None:
    """Put folder ``new`` in ``target``'s place; the old one goes only once it is there."""
    old = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}")
    if target.exists():
        target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def saved_baselines(layout: Layout) -> list[SavedBaseline]:
    """The saved baselines, the latest first."""
    found = []
    for name in saved_names(layout):
        folder = layout.baselines / name
        try:
            record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        count = sum(1 for _ in (folder / "eval").rglob("*.ipynb"))
        found.append(SavedBaseline(name, str(record.get("saved", "")), count, record["versions"]))
    return found
