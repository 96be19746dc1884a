"""A comparison as one HTML file that works offline: both sides' package versions, a table of
pages by frameworks, then one entry per changed cell with its code and both sides' outputs
side by side (an image's difference beside them), linked to its page on the site and to
its source line. Images are inlined; an output's HTML is shown as source, never rendered,
so the file loads nothing."""

from __future__ import annotations

import base64
import difflib
import html
import os
import posixpath
import time
from collections.abc import Iterable
from pathlib import Path

from polybook.drift.model import CellDrift, DriftReport, Versions
from polybook.drift.outputs import SVG, Part
from polybook.layout import Layout

SHOWN = 20_000  # the characters of a text output the report shows
STYLE = """
:root { color-scheme: light dark; --line: #8884; --soft: #8881; --mark: #f5c54266;
  --bad: #c62828; --good: #2e7d32; --warn: #b26a00; --calm: #546e7a; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px;
  padding: 1rem 1.5rem 4rem; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { text-align: left; padding: .2rem .7rem; border-bottom: 1px solid var(--line); }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; padding: .5rem;
  background: var(--soft); border-radius: 4px; font: 13px/1.35 ui-monospace, monospace; }
article { border: 1px solid var(--line); border-radius: 6px; padding: .2rem 1rem 1rem;
  margin: 1.2rem 0; }
article h3 { font-size: 1rem; font-family: ui-monospace, monospace; }
.kind { display: inline-block; padding: 0 .5rem; border-radius: 3px; color: #fff;
  font-size: .8rem; margin-right: .4rem; }
.new-error { background: var(--bad); } .fixed-error, .gone-warning { background: var(--good); }
.new-warning { background: var(--warn); } .changed, .image { background: #6a1b9a; }
.tolerance { background: var(--calm); }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.sides h4, .difference h4 { margin: .6rem 0 .3rem; }
.channel { font-size: .75rem; opacity: .7; margin-top: .4rem; }
.sides img, .difference img { max-width: 100%; background: #fff; border: 1px solid var(--line); }
mark { background: var(--mark); color: inherit; }
.detail { margin: .2rem 0; } .links { font-size: .9rem; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _image(mime: str, data: bytes, alt: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:{mime};base64,{encoded}">'


def _marked(text: str, other: str) -> str:
    """``text`` with the lines that ``other`` lacks marked (a long text cut short)."""
    cut = len(text) - SHOWN
    text = f"{text[:SHOWN]}\n… ({cut} more characters)" if cut > 0 else text
    lines, others = text.splitlines(), other[: SHOWN + 1].splitlines()
    kept: set[int] = set()
    for block in difflib.SequenceMatcher(None, lines, others, autojunk=False).get_matching_blocks():
        kept.update(range(block.a, block.a + block.size))
    shown = [_e(line) if i in kept else f"<mark>{_e(line)}</mark>" for i, line in enumerate(lines)]
    return "\n".join(shown)


def _parts(parts: tuple[Part, ...], others: tuple[Part, ...], side: str) -> str:
    if not parts:
        return "<p><em>no output</em></p>"
    out = []
    texts = {p.channel: p.text for p in others if not p.is_image}
    for part in parts:
        out.append(f'<div class="channel">{_e(part.channel)} · {_e(part.mime)}</div>')
        if part.mime == SVG:
            out.append(_image(SVG, part.text.encode(), f"{side}: {part.channel}"))
        elif part.is_image:
            out.append(_image(part.mime, part.data, f"{side}: {part.channel}"))
        else:
            out.append(f"<pre>{_marked(part.text, texts.get(part.channel, ''))}</pre>")
    return "\n".join(out)


def _site_link(report_file: Path, layout: Layout, cell: CellDrift) -> str:
    page = layout.html / (cell.page.removesuffix(".md") + ".html")
    if not page.is_file():
        return ""
    relative = Path(os.path.relpath(page, report_file.parent)).as_posix()
    return f'<a href="{_e(relative)}?tab={_e(cell.framework)}">the page on the site</a> · '


def _in_site(site_folder: str, cell: CellDrift) -> str:
    """The link to ``cell``'s page from a report read in the site's ``site_folder``."""
    page = cell.page.removesuffix(".md") + ".html"
    relative = posixpath.relpath(page, site_folder)
    return (
        f'<p class="links"><a href="{_e(relative)}?tab={_e(cell.framework)}">'
        f"{_e(cell.page)}, line {cell.line}</a></p>"
    )


def _cell(index: int, cell: CellDrift, report_file: Path, layout: Layout, site_folder: str) -> str:
    kinds = "".join(
        f'<p class="detail"><span class="kind {_e(c.kind)}">{_e(c.kind)}</span>{_e(c.detail)}</p>'
        for c in cell.changes
    )
    # Relative, so that a report published beside a site names no folder of this host.
    source = Path(os.path.relpath(layout.root / cell.page, report_file.parent)).as_posix()
    links = (
        f'<p class="links">{_site_link(report_file, layout, cell)}'
        f'<a href="{_e(source)}">{_e(cell.page)}, line {cell.line}</a></p>'
    )
    if site_folder:  # the site holds the pages, not their sources
        links = _in_site(site_folder, cell)
    differences = "".join(
        f'<div class="difference"><h4>difference</h4>'
        f"{_image('image/png', c.difference, 'the pixels that changed, marked')}</div>"
        for c in cell.changes
        if c.difference
    )
    return f"""<article id="cell-{index}">
<h3>{_e(cell.location)}</h3>
{kinds}
{links}
<details open><summary>code</summary><pre>{_e(cell.code)}</pre></details>
<div class="sides">
<div class="before"><h4>before</h4>{_parts(cell.before, cell.after, "before")}</div>
<div class="after"><h4>after</h4>{_parts(cell.after, cell.before, "after")}</div>
</div>
{differences}
</article>"""


def _versions(report: DriftReport) -> str:
    rows = [
        f"<tr><td>{_e(c.framework)}</td><td>{_e(c.package)}</td>"
        f"<td>{_e(c.before or '(none)')}</td><td>{_e(c.after or '(none)')}</td></tr>"
        for c in report.packages
    ]
    changed = (
        "<table><tr><th>framework</th><th>package</th><th>before</th><th>after</th></tr>"
        + "".join(rows)
        + "</table>"
        if rows
        else "<p>No package changed (or the versions of a side are unknown).</p>"
    )
    return changed + "".join(
        _all_versions(fw, report.before_versions, report.after_versions)
        for fw in sorted(set(report.before_versions) | set(report.after_versions))
    )


def _all_versions(fw: str, before: Versions, after: Versions) -> str:
    old, new = before.get(fw, {}), after.get(fw, {})
    rows = "".join(
        f"<tr><td>{_e(name)}</td><td>{_e(old.get(name, ''))}</td>"
        f"<td>{_e(new.get(name, ''))}</td></tr>"
        for name in sorted(set(old) | set(new))
    )
    return (
        f"<details><summary>every package of {_e(fw)} ({len(old)} before,"
        f" {len(new)} after)</summary><table><tr><th>package</th><th>before</th>"
        f"<th>after</th></tr>{rows}</table></details>"
    )


def _table(report: DriftReport, anchors: dict[tuple[str, str], int]) -> str:
    rows = []
    changed = report.kinds_by_notebook()
    for summary in report.notebooks:
        place = (summary.page, summary.framework)
        found = changed.get(place, [])
        if not found:
            continue
        counts = "".join(
            f"<td>{found.count(kind) or ''}</td>"
            for kind in ("changed", "image", "tolerance", "new-error", "fixed-error")
        )
        warnings = found.count("new-warning"), found.count("gone-warning")
        rows.append(
            f'<tr><td><a href="#cell-{anchors[place]}">{_e(summary.page)}</a></td>'
            f"<td>{_e(summary.framework)}</td>{counts}"
            f"<td>{warnings[0] or ''}</td><td>{warnings[1] or ''}</td></tr>"
        )
    head = "".join(
        f"<th>{name}</th>"
        for name in (
            "page", "framework", "changed", "images", "tolerance", "new errors",
            "fixed errors", "new warnings", "gone warnings",
        )
    )  # fmt: skip
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>" if rows else "<p>Nothing changed.</p>"


def _section(title: str, entries: Iterable[str]) -> str:
    body = "\n".join(entries)
    return f"<section><h2>{_e(title)}</h2>\n{body}</section>" if body else ""


def render_html(
    report: DriftReport, layout: Layout, report_file: Path, site_folder: str = ""
) -> str:
    """The report as one HTML page, to be written at ``report_file`` (links are relative):
    read in the site's ``site_folder`` where one is named (each cell links its page there),
    else beside the book (each cell links its source line, and the built page)."""
    indexed = list(enumerate(report.cells, start=1))
    anchors: dict[tuple[str, str], int] = {}
    for index, cell in indexed:
        anchors.setdefault((cell.page, cell.framework), index)
    changed = [(i, c) for i, c in indexed if set(c.kinds) != {"tolerance"}]
    calm = [(i, c) for i, c in indexed if set(c.kinds) == {"tolerance"}]
    settings = ", ".join(f"{k} {v:g}" for k, v in report.settings.items())
    made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    title = f"What changed: {report.before} → {report.after}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)}</title><style>{STYLE}</style></head>
<body>
<h1>What changed</h1>
<p><b>before</b> {_e(report.before)} · <b>after</b> {_e(report.after)}</p>
<p class="links">{len(report.notebooks)} notebooks compared, {len(report.cells)} cells changed
({len(calm)} only within tolerance) · {_e(settings)} · made {_e(made)}</p>
<section><h2>Packages</h2>{_versions(report)}</section>
<section><h2>Pages</h2>{_table(report, anchors)}</section>
{_section("Changed cells", (_cell(i, c, report_file, layout, site_folder) for i, c in changed))}
{_section("Within tolerance", (_cell(i, c, report_file, layout, site_folder) for i, c in calm))}
</body></html>
"""
