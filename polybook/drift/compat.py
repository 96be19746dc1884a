"""What ``polybook compat`` tells of each section: for a framework and a target (the pins the
book is built with, the newest release, a named platform's versions), whether the section
works, warns, changes its outputs or fails, read from its notebook run with the target's pins
and from the comparison with the current build; and ``compat.json``, the record of them all
that the site and the students' notebooks read."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from nbformat import NotebookNode

from polybook.drift.model import CellDrift, DriftReport
from polybook.drift.outputs import read_outputs
from polybook.drift.randomness import by_chance
from polybook.meta import cell_meta

# ``random``: only values that come of unseeded random draws differ (see drift/randomness.py)
Status = Literal["works", "random", "warnings", "changed", "fails"]
STATUSES: tuple[Status, ...] = ("works", "random", "warnings", "changed", "fails")
BUILT = "built"  # the target of the pins the book is built with
NEWEST = "newest"  # the newest release on the package index
FORMAT = 1  # compat.json's format


@dataclass(frozen=True)
class Failure:
    """The first failing cell of a section: its number among the code cells, its line in
    the page, its error (``Name: value``)."""

    cell: int
    line: int
    error: str


@dataclass(frozen=True)
class SectionResult:
    """One section (page) of one framework checked against one target."""

    page: str
    framework: str
    target: str
    status: Status
    version: str  # the framework's main package and version: ``torch 2.15.0``
    key: str  # the notebook's code and the target's pins: the same key, the same result
    cells: int = 0  # the failing cells (fails) or the changed ones (changed, warnings)
    first: Failure | None = None
    report: str = ""  # the drift report, relative to compat.json, with its anchor
    checked: str = ""  # the day it was run, YYYY-MM-DD


@dataclass(frozen=True)
class TargetRecord:
    """A target of a framework as it was checked: its pins' digest, its versions, the
    drift report, the day, and whether its pins are the built ones (nothing newer)."""

    framework: str
    target: str
    pins: str
    versions: Mapping[str, str]
    checked: str
    report: str = ""
    same_as_built: bool = False
    note: str = ""  # why it could not be checked ("" where it was)


@dataclass
class CompatRecord:
    """``compat.json``: when, every target checked, every section's result."""

    made: str
    frameworks: dict[str, dict[str, str]] = field(default_factory=dict)  # display, package
    targets: list[TargetRecord] = field(default_factory=list)
    results: list[SectionResult] = field(default_factory=list)


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def has_code(nb: NotebookNode) -> bool:
    return any(c.cell_type == "code" for c in nb.cells)


def ran(nb: NotebookNode) -> bool:
    """Whether ``nb`` was run: a partial build leaves the other pages' notebooks unrun."""
    return any(
        c.cell_type == "code" and (c.get("execution_count") is not None or c.get("outputs"))
        for c in nb.cells
    )


def code_digest(nb: NotebookNode) -> str:
    """The notebook's code, as a digest: what its result depends on besides the pins."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        if cell.cell_type == "code":
            digest.update(str(cell.source).encode() + b"\0")
    return digest.hexdigest()


def result_key(nb: NotebookNode, pins: str) -> str:
    return hashlib.sha256(f"{code_digest(nb)}\0{pins}".encode()).hexdigest()[:24]


def _failures(nb: NotebookNode) -> tuple[int, Failure | None, bool]:
    """The cells of ``nb`` that failed, the first, whether any warned."""
    failed, first, warned = 0, None, False
    code = [c for c in nb.cells if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        outputs = read_outputs(cell)
        warned |= bool(outputs.warnings)
        if outputs.error:
            failed += 1
            if first is None:
                first = Failure(number, cell_meta(cell).line or 0, outputs.error)
    return failed, first, warned


def judge_built(
    notebooks: Mapping[tuple[str, str], NotebookNode], version: str, pins: str, checked: str
) -> list[SectionResult]:
    """The sections as the current build ran them: failing cells, else warnings, else
    works (nothing to compare with)."""
    found = []
    for (page, fw), nb in sorted(notebooks.items()):
        if not has_code(nb):
            continue  # a page without code works with anything
        failed, first, warned = _failures(nb)
        status: Status = "fails" if failed else "warnings" if warned else "works"
        key = result_key(nb, pins)
        found.append(
            SectionResult(page, fw, BUILT, status, version, key, failed, first, "", checked)
        )
    return found


def _chance(cell: CellDrift, nb: NotebookNode) -> bool:
    """Whether ``cell`` of ``nb`` changed by chance (an unseeded draw before it)."""
    code = [str(c.source) for c in nb.cells if c.cell_type == "code"][: cell.cell]
    texts = [(a.text, b.text) for a, b in zip(cell.before, cell.after, strict=False)]
    same_count = len(cell.before) == len(cell.after)
    pairs = texts if same_count and all(a or b for a, b in texts) else []
    return by_chance(cell.framework, code, cell.kinds, pairs)


def judge_target(
    target: str,
    before: Mapping[tuple[str, str], NotebookNode],
    after: Mapping[tuple[str, str], NotebookNode],
    drift: DriftReport,
    version: str,
    pins: str,
    report: str,
    checked: str,
) -> list[SectionResult]:
    """The sections run with ``target``'s pins (``after``), judged against the current build
    (``before``, ``drift`` the comparison): a cell that fails with the target fails the
    section; else a changed output or image changes it (``random`` where every changed cell
    changed by chance); else a new warning warns."""
    anchors: dict[tuple[str, str], int] = {}
    for index, cell in enumerate(drift.cells, start=1):
        anchors.setdefault((cell.page, cell.framework), index)
    kinds = drift.kinds_by_notebook()
    found = []
    for place, nb in sorted(after.items()):
        page, fw = place
        if not has_code(nb):
            continue
        failed, first, _ = _failures(nb)
        changes = kinds.get(place, [])
        status: Status
        if failed:
            status, count = "fails", failed
        elif "changed" in changes or "image" in changes or "fixed-error" in changes:
            count = sum(k != "tolerance" for k in changes)
            moved = [c for c in drift.cells if (c.page, c.framework) == place]
            chance = all(_chance(c, nb) for c in moved if set(c.kinds) != {"tolerance"})
            status = "random" if chance else "changed"
        elif "new-warning" in changes:
            status, count = "warnings", changes.count("new-warning")
        else:
            status, count = "works", 0
        link = f"{report}#cell-{anchors[place]}" if place in anchors else report
        key = result_key(before.get(place, nb), pins)
        found.append(
            SectionResult(page, fw, target, status, version, key, count, first, link, checked)
        )
    return found


def reused(
    previous: Sequence[SectionResult], keys: Mapping[str, str]
) -> list[SectionResult] | None:
    """The previous results of one framework and target when each page's key is the same
    (``keys``: page -> key) and no page was added or removed; else None."""
    if not keys or {r.page: r.key for r in previous} != dict(keys):
        return None
    return list(previous)


def to_json(record: CompatRecord) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "made": record.made,
        "frameworks": record.frameworks,
        "targets": [asdict(t) for t in record.targets],
        "results": [asdict(r) for r in record.results],
    }


def _result(data: Mapping[str, Any]) -> SectionResult:
    first = data.get("first")
    failure = Failure(**first) if isinstance(first, dict) else None
    return SectionResult(**{**data, "first": failure})


def read_record(path: Path) -> CompatRecord | None:
    """``compat.json`` as an earlier run wrote it; None where there is none, or it does
    not read (a run then starts afresh)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            return None
        return CompatRecord(
            str(data["made"]),
            dict(data.get("frameworks", {})),
            [TargetRecord(**t) for t in data.get("targets", [])],
            [_result(r) for r in data.get("results", [])],
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def summary(record: CompatRecord) -> dict[tuple[str, str], dict[Status, int]]:
    """Per framework and target, how many sections have each status."""
    found: dict[tuple[str, str], dict[Status, int]] = {}
    for r in record.results:
        counts = found.setdefault((r.framework, r.target), dict.fromkeys(STATUSES, 0))
        counts[r.status] += 1
    return found
