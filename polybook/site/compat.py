"""What ``polybook compat`` found, on the site: its record (``compat.json``) and drift
reports copied beside the pages (``compat/``), the record as a script every page loads (the
"works with" line under each section's title, ``polybook-compat.js``; the same data from
``file://``), and the compatibility page, a table of every section, framework and target.
A book that has not run ``polybook compat`` gets an empty script and no page."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path
from typing import Any

from polybook.config import Book
from polybook.fsutil import sync_files, write_atomic
from polybook.render.myst import Lines
from polybook.render.page import Page

COMPAT_LINK = "compat"  # in the site: compat.json and reports/
DATA_SCRIPT = "polybook-compat-data.js"
PAGE = "compatibility"
SCHEDULED = ".github/workflows/compat.yml"  # the weekly check `polybook new --ci github` writes
WORDS = {"works": "works", "warnings": "warnings", "changed": "outputs change", "fails": "fails"}


def compat_file(book: Book) -> Path:
    return book.layout.compat / "compat.json"


def read_compat(book: Book) -> dict[str, Any] | None:
    """The record of the book's last ``polybook compat`` run, None where there is none."""
    try:
        data = json.loads(compat_file(book).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("results"), list) else None


# What a page's line reads of a result (the record's pins and keys stay in compat.json).
PAGE_FIELDS = ("page", "framework", "target", "status", "version", "cells", "report", "checked")


def _for_pages(data: dict[str, Any]) -> dict[str, Any]:
    """The part of the record every page loads: each framework's name and each result's
    line, not the targets' pins (a page stays light)."""
    results = [{k: r[k] for k in PAGE_FIELDS if k in r} for r in data["results"]]
    return {
        "made": data.get("made", ""),
        "frameworks": data.get("frameworks", {}),
        "results": results,
    }


def write_compat(book: Book, srcdir: Path) -> bool:
    """The data script in the site's sources (``null`` without a record), and the record
    with its reports among the files copied into the site; True if anything changed."""
    data = read_compat(book)
    shown: dict[str, Any] | None = _for_pages(data) if data is not None else None
    if data is None and (book.root / SCHEDULED).is_file():  # the pages ask the site's own
        shown = {"made": "", "frameworks": {}, "results": []}
    script = f"window.polybookCompatData = {json.dumps(shown, sort_keys=True)};\n"
    changed = write_atomic(srcdir / "_static" / DATA_SCRIPT, script)
    copy = book.layout.site_extra / COMPAT_LINK
    if data is None:
        if copy.is_dir():
            shutil.rmtree(copy)
            changed = True
        return changed
    folder = compat_file(book).parent
    held = [compat_file(book), *folder.glob("reports/*.html")]
    return sync_files({p.relative_to(folder).as_posix(): p for p in held}, copy) > 0 or changed


def _cell(result: dict[str, Any]) -> str:
    status = str(result.get("status", ""))
    text = WORDS.get(status, status)
    cells = int(result.get("cells") or 0)
    if status == "fails" and cells:
        text += f": {cells} cell{'s' if cells != 1 else ''}"
    report = str(result.get("report") or "")
    if report and status != "works":
        link = html.escape(f"{COMPAT_LINK}/{report}")
        text = f'<a href="{link}">{html.escape(text)}</a>'
    else:
        text = html.escape(text)
    return f'<td class="pb-compat-{html.escape(status)}">{text}</td>'


def compat_table(data: dict[str, Any]) -> str:
    """Every section, framework and target as a table (HTML)."""
    frameworks = data.get("frameworks", {})
    rows = []
    for r in sorted(data["results"], key=lambda r: (r["page"], r["framework"], r["target"])):
        display = frameworks.get(r["framework"], {}).get("display", r["framework"])
        rows.append(
            f"<tr><td>{html.escape(r['page'])}</td><td>{html.escape(display)}</td>"
            f"<td>{html.escape(r['target'])}</td><td>{html.escape(r.get('version', ''))}</td>"
            f"{_cell(r)}<td>{html.escape(r.get('checked', ''))}</td></tr>"
        )
    head = "".join(
        f"<th>{h}</th>" for h in ("Section", "Framework", "Target", "Versions", "Result", "Checked")
    )
    return (
        f'<table id="polybook-compat-table" class="pb-compat-table">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def compat_page(book: Book) -> Page | None:
    """The compatibility page, where ``polybook compat`` has run."""
    data = read_compat(book)
    if data is None or not data["results"]:
        return None
    made = html.escape(str(data.get("made", "")))
    text = (
        "# Compatibility\n\n"
        "Each section run with the versions the book is built with (`built`), the newest"
        " releases on the package index (`newest`) and the named targets. `outputs change`"
        " and `fails` open what changed.\n\n"
        f"```{{raw}} html\n<p>Checked {made}.</p>\n{compat_table(data)}\n```\n"
    )
    page = Page(PAGE, Lines())
    page.lines.add(text, 1)
    return page
