"""The "works with" line of a section, from the record of ``polybook compat``
(``_build/compat/compat.json``), in a students' notebook and under the section's title on
the site: "Outputs from torch 2.13.0 · Works with torch 2.14.1 · checked 27 November 2026",
"Fails with torch 2.14.1: 2 cells"; with a link to the drift report where the site is
published. No record, no line."""

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


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def human_day(day: str) -> str:
    """``2026-11-27`` (or a timestamp of that day) as ``27 November 2026``; else as given."""
    try:
        year, month, rest = day[:10].split("-")
        return f"{int(rest)} {MONTHS[int(month) - 1]} {int(year)}"
    except (ValueError, IndexError):
        return day


def statement(result: dict[str, Any], label: str) -> str:
    """One target's result in words: ``works`` when its outputs agree within the drift
    tolerance, ``random`` when only unseeded random draws differ, ``changed`` beyond it."""
    version = str(result.get("version") or result.get("target", ""))
    named = f"{label} ({version})" if label else version
    status, cells = result.get("status"), int(result.get("cells") or 0)
    if status == "fails":
        return f"Fails with {named}: {cells} cell{'s' if cells != 1 else ''}"
    if status == "changed":
        return f"Outputs differ with {named}"
    if status == "random":
        return f"Works with {named} (random draws differ)"
    if status == "warnings":
        return f"Works with {named}, with warnings"
    return f"Works with {named}"


def line_parts(
    results: list[dict[str, Any]], page: str, framework: str
) -> tuple[str, list[tuple[str, dict[str, Any]]], str]:
    """What ``page``'s line of ``framework`` says: the version its outputs came from (the
    built target's), each other target's statement with its result, and the last day
    checked; nothing where the page was not checked."""
    mine = {
        str(r.get("target")): r
        for r in results
        if (r.get("page"), r.get("framework")) == (page, framework)
    }
    if not mine:
        return "", [], ""
    built = str(mine[BUILT].get("version", "")) if BUILT in mine else ""
    order = [NEWEST, *sorted(t for t in mine if t not in (BUILT, NEWEST))]
    shown = [t for t in order if t in mine] or [BUILT]
    said = [(statement(mine[t], "" if t in (BUILT, NEWEST) else t), mine[t]) for t in shown]
    days = sorted(str(r.get("checked")) for r in mine.values() if r.get("checked"))
    return built, said, days[-1] if days else ""


def compat_line(results: list[dict[str, Any]], page: str, framework: str, site: str = "") -> str:
    """The line of ``page``'s ``framework`` notebook ("" where nothing was checked);
    ``site``: the published site's address, for the links to the reports."""
    built, said, day = line_parts(results, page, framework)
    if not said:
        return ""
    parts = [f"Outputs from {built}"] if built else []
    for text, result in said:
        report = str(result.get("report") or "")
        details = ""
        if site and report and result.get("status") != "works":
            details = f" ([details]({site.rstrip('/')}/compat/{report}))"
        parts.append(text + details)
    checked = f" · checked {human_day(day)}" if day else ""
    return " · ".join(parts) + checked
