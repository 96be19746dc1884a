"""The records of a comparison: each changed cell with what changed in it, each notebook
compared, and both sides' package versions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from nbformat import NotebookNode

from polybook.diagnostics import Location
from polybook.drift.outputs import Part

Kind = Literal[
    "tolerance", "changed", "image", "new-error", "fixed-error", "new-warning", "gone-warning"
]
KINDS: tuple[Kind, ...] = (
    "new-error",
    "new-warning",
    "changed",
    "image",
    "fixed-error",
    "gone-warning",
    "tolerance",
)
# ``--fail-on LEVEL``: the kinds that fail at each level (each level includes the ones above).
LEVELS: dict[str, frozenset[Kind]] = {
    "error": frozenset({"new-error"}),
    "warning": frozenset({"new-error", "new-warning"}),
    "change": frozenset(k for k in KINDS if k != "tolerance"),
}
Versions = Mapping[str, Mapping[str, str]]  # framework -> package -> version


@dataclass(frozen=True)
class Side:
    """One side of a comparison: its executed notebooks by (page, framework), the package
    versions of the environment that made them, and, for frozen outputs that keep no code,
    each notebook's cells by digest of their code."""

    label: str
    notebooks: Mapping[tuple[str, str], NotebookNode]
    versions: Versions = field(default_factory=dict)
    digests: Mapping[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class CellChange:
    """One kind of change in a cell, with a line saying what, and for an image the picture
    of the difference (PNG)."""

    kind: Kind
    detail: str
    difference: bytes = b""


@dataclass(frozen=True)
class CellDrift:
    """A cell whose outputs changed: where it is, its code, its changes and both sides'
    outputs."""

    page: str
    line: int
    framework: str
    cell: int  # its number among the notebook's code cells, from 1
    code: str
    changes: tuple[CellChange, ...]
    before: tuple[Part, ...] = ()
    after: tuple[Part, ...] = ()

    @property
    def location(self) -> Location:
        return Location(self.page, self.line, self.framework, self.cell)

    @property
    def kinds(self) -> tuple[Kind, ...]:
        return tuple(c.kind for c in self.changes)


@dataclass(frozen=True)
class NotebookSummary:
    """A notebook compared: its code cells, those that changed, those not compared (run on
    one side only, skipped for want of devices, added or removed since)."""

    page: str
    framework: str
    cells: int
    changed: int = 0
    not_compared: int = 0


@dataclass(frozen=True)
class PackageChange:
    framework: str
    package: str
    before: str  # "" where it was not installed
    after: str


def package_changes(before: Versions, after: Versions) -> list[PackageChange]:
    """The packages whose versions differ, framework by framework (both sides known)."""
    found = []
    for fw in sorted(set(before) & set(after)):
        old, new = before[fw], after[fw]
        for name in sorted(set(old) | set(new)):
            if old.get(name, "") != new.get(name, ""):
                found.append(PackageChange(fw, name, old.get(name, ""), new.get(name, "")))
    return found


@dataclass(frozen=True)
class DriftReport:
    """What changed from ``before`` to ``after``."""

    before: str  # each side's label
    after: str
    before_versions: Versions
    after_versions: Versions
    cells: tuple[CellDrift, ...]
    notebooks: tuple[NotebookSummary, ...]
    one_sided: tuple[tuple[str, str, str], ...] = ()  # (page, framework, the side it is on)
    settings: Mapping[str, float] = field(default_factory=dict)  # rtol, atol, image_threshold

    @property
    def packages(self) -> list[PackageChange]:
        return package_changes(self.before_versions, self.after_versions)

    def failing(self, level: str) -> list[tuple[CellDrift, CellChange]]:
        """The changes that ``--fail-on level`` fails on."""
        kinds = LEVELS.get(level, frozenset())
        return [(c, x) for c in self.cells for x in c.changes if x.kind in kinds]

    def kinds_by_notebook(self) -> dict[tuple[str, str], list[Kind]]:
        """The kinds of change of each notebook that changed, by (page, framework)."""
        found: dict[tuple[str, str], list[Kind]] = {}
        for cell in self.cells:
            found.setdefault((cell.page, cell.framework), []).extend(cell.kinds)
        return found
