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
    try:
        text = path.read_text(encoding="utf-8")
        entry = json.loads(text)
    except (OSError, ValueError):
        return []
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
    outside ``_freeze/files/``."""
    folder = root / FREEZE_DIR
    for path in entry_files(folder):
        report_refused(folder, path, reporter)
