"""The "works with" line of a students' notebook, from the record of ``polybook compat``
(``_build/compat/compat.json``), as the site shows it under the section's title: "Works with
torch 2.14 · checked 2026-11-27", "Fails with torch 2.14: 2 cells"; with a link to the drift
report where the site is published. No record, no line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BUILT, NEWEST = "built", "newest"


def read_results(record: Path) -> list[dict[str, Any]]:
    """The results ``record`` holds; none where it is missing or does not read."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    results = data.get("results") if isinstance(data, dict) else None
    return [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []


def _statement(result: dict[str, Any], label: str) -> str:
    version = str(result.get("version") or result.get("target", ""))
    named = f"{label} ({version})" if label else version
    status, cells = result.get("status"), int(result.get("cells") or 0)
    if status == "fails":
        return f"Fails with {named}: {cells} cell{'s' if cells != 1 else ''}"
    if status == "changed":
        return f"Outputs change with {named}"
    if status == "warnings":
        return f"Works with {named}, with warnings"
    return f"Works with {named}"


def compat_line(results: list[dict[str, Any]], page: str, framework: str, site: str = "") -> str:
    """The line of ``page``'s ``framework`` notebook ("" where nothing was checked);
    ``site``: the published site's address, for the links to the reports."""
    mine = {
        str(r.get("target")): r
        for r in results
        if (r.get("page"), r.get("framework")) == (page, framework)
    }
    if not mine:
        return ""
    order = [NEWEST, *sorted(t for t in mine if t not in (BUILT, NEWEST))]
    shown = [t for t in order if t in mine] or [BUILT]
    parts = []
    for target in shown:
        result = mine[target]
        text = _statement(result, "" if target in (BUILT, NEWEST) else str(target))
        report = str(result.get("report") or "")
        if site and report and result.get("status") != "works":
            text += f" ([details]({site.rstrip('/')}/compat/{report}))"
        parts.append(text)
    days = sorted(str(r.get("checked")) for r in mine.values() if r.get("checked"))
    checked = f" · checked {days[-1]}" if days else ""
    return " · ".join(parts) + checked
