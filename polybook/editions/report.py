"""``polybook editions status`` as a table, as JSON and as one offline HTML page."""

from __future__ import annotations

import html
import json

from polybook.editions.status import EditionStatus, PageStatus


def _cells(page: PageStatus) -> str:
    return "; ".join(f"{fw} {', '.join(map(str, cells))}" for fw, cells in page.code.items())


def _synced(page: PageStatus) -> str:
    if page.state != "paired":
        return ""
    return {None: "never synced", True: "source changed", False: "synced"}[page.stale]


def rows(edition: EditionStatus) -> list[list[str]]:
    """One row per page: page, state, differing code cells, missing labels, prose."""
    return [[p.page, p.state, _cells(p), ", ".join(p.labels), _synced(p)] for p in edition.pages]


HEADER = ["page", "state", "code cells that differ", "labels it lacks", "prose"]


def table(editions: list[EditionStatus]) -> str:
    """A plain-text table per edition, and a line of totals."""
    out = []
    for edition in editions:
        found = rows(edition)
        widths = [max(len(r[i]) for r in [HEADER, *found]) for i in range(len(HEADER))]
        out.append(f"{edition.translation} ({edition.lang}) against {edition.source}:")
        for row in [HEADER, *found]:
            out.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        counts = {k: sum(k in p.kinds() for p in edition.pages) for k in KIND_WORDS}
        out.append("  " + ", ".join(f"{n} {KIND_WORDS[k]}" for k, n in counts.items()))
    return "\n".join(line.rstrip() for line in out) + "\n"


KIND_WORDS = {
    "missing": "missing",
    "extra": "extra",
    "code": "with other code",
    "labels": "lacking labels",
    "stale": "stale",
}


def to_json(editions: list[EditionStatus]) -> str:
    return json.dumps([e.to_json() for e in editions], indent=1, ensure_ascii=False) + "\n"


def to_html(editions: list[EditionStatus]) -> str:
    """One page, no script, no outside file: it reads from ``file://``."""
    parts = []
    for edition in editions:
        head = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in HEADER)
        body = "".join(
            f"<tr class='{' '.join(p.kinds()) or 'ok'}'>"
            + "".join(f"<td>{html.escape(c)}</td>" for c in row)
            + "</tr>"
            for p, row in zip(edition.pages, rows(edition), strict=True)
        )
        title = f"{edition.translation} ({edition.lang}) against {edition.source}"
        parts.append(
            f"<h2>{html.escape(title)}</h2><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:.2em .5em;text-align:left}"
        ".missing,.stale{background:#fde2e2}.code,.labels,.extra{background:#fff4d6}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Editions status</title><style>{style}</style></head>"
        f"<body><main><h1>Editions status</h1>{''.join(parts)}</main></body></html>\n"
    )
