"""What ``polybook compat`` found, on the site: its record (``compat.json``) and drift
reports copied beside the pages (``compat/``), the record as a script every page loads (the
"works with" line under each section's title, ``polybook-compat.js``; the same data from
``file://``), and the compatibility page, a table of every section, framework and target.
A book that has not run ``polybook compat`` gets an empty script and no page."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

from polybook.config import Book
from polybook.fsutil import sync_files, write_atomic
from polybook.notebooks.compat_line import human_day
from polybook.render.myst import Lines
from polybook.render.page import Page, with_toctree
from polybook.site.compat_reports import report_pages

COMPAT_LINK = "compat"  # in the site: compat.json and reports/
DATA_SCRIPT = "polybook-compat-data.js"
PAGE = "compatibility"
SCHEDULED = ".github/workflows/compat.yml"  # the weekly check `polybook new --ci github` writes
WORDS = {
    "works": "works",
    "random": "works (random draws differ)",
    "warnings": "works, with warnings",
    "changed": "outputs differ",
    "fails": "fails",
}
BUILT, NEWEST = "built", "newest"


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
    held = [compat_file(book)]  # the reports are pages of the site
    return sync_files({p.relative_to(folder).as_posix(): p for p in held}, copy) > 0 or changed


def _title(book: Book, page: str) -> str:
    """A page's title as its first heading reads, without slide marks and labels."""
    try:
        lines = (book.root / page).read_text(encoding="utf-8").splitlines()
    except OSError:
        return page
    heading = next((line[2:] for line in lines if line.startswith("# ")), page)
    heading = re.sub(r"\(~~.*?~~\)|\[\*\*|\*\*\]|\(\*\*|\*\*\)|\{#[^}]*\}", "", heading)
    return heading.strip() or page


def _result_cell(result: dict[str, Any] | None) -> str:
    if result is None:
        return "<td>not checked</td>"
    status = str(result.get("status", ""))
    cells = int(result.get("cells") or 0)
    text = WORDS.get(status, status)
    if status == "fails" and cells:
        text += f": {cells} cell{'s' if cells != 1 else ''}"
    shown = html.escape(text)
    report = str(result.get("report") or "")
    if report and status != "works":
        shown += f' (<a href="{html.escape(f"{COMPAT_LINK}/{report}")}">details</a>)'
    return f'<td class="pb-compat-{html.escape(status)}">{shown}</td>'


def _framework_table(book: Book, data: dict[str, Any], fw: str, hidden: bool) -> str:
    """``fw``'s results: one table per chapter, a row per section, a column per target."""
    mine = [r for r in data["results"] if r["framework"] == fw]
    targets = [NEWEST, *sorted({r["target"] for r in mine} - {BUILT, NEWEST})]
    targets = [t for t in targets if any(r["target"] == t for r in mine)]
    built = next((r.get("version", "") for r in mine if r["target"] == BUILT), "")
    display = data.get("frameworks", {}).get(fw, {}).get("display", fw)
    heads = []
    for t in targets:
        version = next(r.get("version", "") for r in mine if r["target"] == t)
        heads.append(version if t == NEWEST else f"{t} ({version})")
    parts = [f"<p>{html.escape(display)}: the book's outputs come from {html.escape(built)}.</p>"]
    by_page = {(r["page"], r["target"]): r for r in mine}
    pages = sorted({r["page"] for r in mine})
    for chapter in sorted({p.rpartition("/")[0] for p in pages}):
        index = f"{chapter}/index.md" if chapter else "index.md"
        link = html.escape(index.removesuffix(".md") + ".html")
        parts.append(f'<p class="pb-compat-chapter"><a href="{link}">{_title(book, index)}</a></p>')
        rows = []
        for page in (p for p in pages if p.rpartition("/")[0] == chapter):
            href = html.escape(page.removesuffix(".md") + f".html?tab={fw}")
            title = html.escape(_title(book, page))
            cells = "".join(_result_cell(by_page.get((page, t))) for t in targets)
            rows.append(f'<tr><th scope="row"><a href="{href}">{title}</a></th>{cells}</tr>')
        head = "".join(f'<th scope="col">With {html.escape(h)}</th>' for h in heads)
        parts.append(
            '<div class="pb-compat-scroll"><table class="pb-compat-table">'
            f'<thead><tr><th scope="col">Section</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>"
        )
    follow = f'data-pb-follow="{html.escape(fw)}"' + (" hidden" if hidden else "")
    return f'<div class="pb-compat-fw" {follow}><div>{"".join(parts)}</div></div>'


def compat_table(book: Book, data: dict[str, Any]) -> str:
    """Every framework's results (HTML), the first framework's shown: the switcher shows
    the reader's."""
    frameworks = sorted({r["framework"] for r in data["results"]})
    order = [fw for fw in data.get("frameworks", {}) if fw in frameworks] or frameworks
    tables = [_framework_table(book, data, fw, i > 0) for i, fw in enumerate(order)]
    return f'<div id="polybook-compat-table">{"".join(tables)}</div>'


INTRO = (
    "Does each section's code still run with newer releases of its framework? Every section"
    " was run again with the newest release of each framework and with the versions the named"
    " platforms ship (Google Colab's, for one), and what it printed was compared with the"
    " outputs shown in the book.\n\n"
    "- **works**: it runs and prints the same, within rounding;\n"
    "- **works (random draws differ)**: it runs; numbers drawn at random differ, as they do"
    " from one run to the next;\n"
    "- **outputs differ**: it runs, and prints something else (*details* shows what);\n"
    "- **fails**: a cell stops with an error.\n\n"
    "The results shown are those of the framework chosen above."
)


def compat_pages(book: Book) -> list[Page]:
    """The compatibility page and its reports' pages, where ``polybook compat`` has run."""
    data = read_compat(book)
    if data is None or not data["results"]:
        return []
    reports = report_pages(compat_file(book).parent, data, lambda p: _title(book, p), PAGE)
    page = compat_page(book, data)
    return [with_toctree(page, [r.docname for r in reports]), *reports]


def compat_page(book: Book, data: dict[str, Any]) -> Page:
    """The compatibility page: every framework's results by section."""
    made = html.escape(human_day(str(data.get("made", ""))))
    text = (
        f"# Compatibility\n\n{INTRO} Checked on {made}.\n\n"
        f"```{{raw}} html\n{compat_table(book, data)}\n```\n"
    )
    page = Page(PAGE, Lines())
    page.lines.add(text, 1)
    return page
