"""A comparison for the terminal (a table of pages by frameworks) and as JSON records."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table

from polybook.drift.model import DriftReport, PackageChange


def _versions(changes: list[PackageChange]) -> str:
    return ", ".join(f"{c.package} {c.before or '(none)'} → {c.after or '(none)'}" for c in changes)


def _signed(new: int, gone: int) -> str:
    parts = ([f"+{new}"] if new else []) + ([f"−{gone}"] if gone else [])
    return " ".join(parts) or "·"


def summary_table(report: DriftReport) -> Table:
    """Pages by frameworks: changed cells, images, changes within tolerance, errors and
    warnings (+ new, − gone or fixed); notebooks without a change are left out."""
    table = Table(title=None, box=None, pad_edge=False, header_style="bold")
    for name in ("page", "framework", "changed", "images", "tolerance", "errors", "warnings"):
        table.add_column(name, overflow="fold")
    changed = report.kinds_by_notebook()
    for summary in report.notebooks:
        kinds = changed.get((summary.page, summary.framework), [])
        if not kinds:
            continue
        table.add_row(
            summary.page,
            summary.framework,
            str(kinds.count("changed") or "·"),
            str(kinds.count("image") or "·"),
            str(kinds.count("tolerance") or "·"),
            _signed(kinds.count("new-error"), kinds.count("fixed-error")),
            _signed(kinds.count("new-warning"), kinds.count("gone-warning")),
        )
    return table


def print_summary(report: DriftReport, console: Console, html: str = "") -> None:
    """The terminal's summary: both sides, the packages that changed, the table, totals."""

    def say(text: str) -> None:
        console.print(text, soft_wrap=True, highlight=False, markup=False)

    say(f"before: {report.before}")
    say(f"after:  {report.after}")
    changes = report.packages
    for fw in sorted({c.framework for c in changes}):
        moved = _versions([c for c in changes if c.framework == fw])
        say(f"packages changed [{fw}]: {moved}")
    sides = (report.before_versions, report.after_versions)
    known = all(side and all(side.values()) for side in sides)
    if not changes:
        say("packages changed: none" if known else "packages changed: unknown on one side")
    if report.cells:
        console.print(summary_table(report))
    cells = sum(s.cells for s in report.notebooks)
    skipped = sum(s.not_compared for s in report.notebooks)
    changed = sum(1 for s in report.notebooks if s.changed)
    line = (
        f"{len(report.notebooks)} notebooks compared, {changed} with changes; {cells} cells,"
        f" {len(report.cells)} changed"
    )
    if skipped:
        line += f", {skipped} not compared (run on one side only, or added or removed)"
    if report.one_sided:
        line += f"; {len(report.one_sided)} notebooks on one side only"
    say(line)
    if html:
        say(f"report: {html}")


def to_json(report: DriftReport) -> dict[str, Any]:
    """The records (one per kind of change per cell) and both sides' versions."""
    changes = report.packages
    moved: dict[str, dict[str, list[str]]] = {}
    for change in changes:
        moved.setdefault(change.framework, {})[change.package] = [change.before, change.after]
    records = [
        {
            "page": c.page,
            "line": c.line,
            "framework": c.framework,
            "cell": c.cell,
            "kind": x.kind,
            "detail": x.detail,
            "versions": moved.get(c.framework, {}),
        }
        for c in report.cells
        for x in c.changes
    ]
    return {
        "before": {"label": report.before, "versions": report.before_versions},
        "after": {"label": report.after, "versions": report.after_versions},
        "packages": [asdict(c) for c in changes],
        "settings": dict(report.settings),
        "records": records,
        "notebooks": [asdict(s) for s in report.notebooks],
        "one_sided": [
            {"page": page, "framework": fw, "only_in": side} for page, fw, side in report.one_sided
        ],
    }
