"""What ``_freeze/`` entries name, held inside ``_freeze/files/``: an entry may name only the
images ``polybook freeze`` stored there (by content, no link out). Read as JSON, without the
notebook machinery, so that ``check`` and every build look before anything is read."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.layout import FREEZE_DIR

# The only names an entry may give its images: files of _freeze/files/, named by content.
FILE_NAME = re.compile(r"files/[0-9a-f]{64}\.(png|jpg|gif|webp|svg)")
OUTSIDE = "source.outside"


def frozen_image(folder: Path, name: str) -> Path | None:
    """The file of ``folder/files/`` (``folder``: ``_freeze/``) an entry's image ``name``
    is; None where the name is not one of them (another path, or a link out)."""
    if not FILE_NAME.fullmatch(name):
        return None
    path = folder / name
    real = Path(os.path.realpath(path))
    return path if real.is_relative_to(os.path.realpath(folder / "files")) else None


# The fields of an entry's run that are numbers (the rest are text).
RUN_NUMBERS = ("host_gpus", "skipped", "seconds")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def entry_problem(entry: Any) -> str:
    """What makes ``entry`` (read from JSON) other than what ``polybook freeze`` writes, or
    "": an object, its ``run`` an object whose counts are numbers, its ``cells`` a list of
    objects whose ``line`` is a number, each with a list of output objects whose ``data``
    is an object."""
    if not isinstance(entry, dict):
        return f"an entry is a JSON object, not {json.dumps(entry)[:20]}"
    run = entry.get("run", {})
    if not isinstance(run, dict):
        return "its `run` is not an object"
    wrong = [name for name in RUN_NUMBERS if name in run and not _number(run[name])]
    if wrong:
        return f"its run's `{wrong[0]}` is not a number"
    if not _objects(entry.get("cells", [])):
        return "its `cells` is not a list of objects"
    for number, cell in enumerate(entry.get("cells", []), start=1):
        if not isinstance(cell.get("line", 0), int) or isinstance(cell.get("line"), bool):
            return f"cell {number}: its `line` is not a whole number"
        outputs = cell.get("outputs", [])
        if not _objects(outputs):
            return f"cell {number}: its `outputs` is not a list of objects"
        if any(not isinstance(out.get("data", {}), dict) for out in outputs):
            return f"cell {number}: an output's `data` is not an object"
    return ""


def read_entry(path: Path) -> tuple[dict[str, Any], str]:
    """The entry in the file ``path``, or why it cannot be read (then the entry is empty)."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {}, str(exc)
    problem = entry_problem(entry)
    return ({}, problem) if problem else (entry, "")


def entry_images(entry: dict[str, Any]) -> set[str]:
    """The image files an entry names (``files/<sha256>.png``)."""
    return {
        str(value["file"])
        for cell in entry.get("cells", [])
        for out in cell.get("outputs", [])
        for value in out.get("data", {}).values()
        if isinstance(value, dict) and "file" in value
    }


def _line_of(text: str, name: str) -> int:
    """The line of an entry's ``text`` that names ``name`` (0: not found as written)."""
    at = text.find(json.dumps(name))
    return text.count("\n", 0, at) + 1 if at >= 0 else 0


def refused_images(folder: Path, path: Path) -> list[tuple[int, str]]:
    """(line, name) of each image the entry file ``path`` names that is not a file of
    ``folder/files/``."""
    entry, problem = read_entry(path)
    if problem:
        return []
    text = path.read_text(encoding="utf-8")
    bad = sorted(name for name in entry_images(entry) if frozen_image(folder, name) is None)
    return [(_line_of(text, name), name) for name in bad]


def report_refused(folder: Path, path: Path, reporter: Reporter) -> bool:
    """Report the entry file ``path``'s refused images at their lines; whether it has any."""
    where = str(path.relative_to(folder.parent))
    refused = refused_images(folder, path)
    for line, name in refused:
        message = (
            f"a frozen image names {name!r}, which is not a file of {FREEZE_DIR}/files/:"
            " an entry may name only the images `polybook freeze` stored there"
        )
        reporter.error(PolybookError(Location(where, line), message, OUTSIDE))
    return bool(refused)


def entry_files(folder: Path) -> list[Path]:
    """The entries of ``folder`` (``_freeze/``), its ``files/`` left out."""
    found = sorted(folder.glob("*/**/*.json"))
    return [p for p in found if p.relative_to(folder).parts[0] != "files"]


def check_frozen(root: Path, reporter: Reporter) -> None:
    """An error at its line for each image an entry of the book's ``_freeze/`` names
    outside ``_freeze/files/``; a warning for each entry that does not read (as a build
    warns, which does not show it)."""
    folder = root / FREEZE_DIR
    for path in entry_files(folder):
        _, problem = read_entry(path)
        if problem:
            where = Location(str(path.relative_to(root)))
            reporter.warn(where, f"unreadable, not shown: {problem}", "freeze")
        report_refused(folder, path, reporter)
