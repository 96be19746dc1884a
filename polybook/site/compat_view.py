"""The "works with" line under each section's title, written into the page when it is built
(one line per framework, the reader's shown: it works without JavaScript and moves nothing
once the page is shown): the version the page's outputs came from, each target's result, the
details of what differed and the day it was checked."""

from __future__ import annotations

import html
import re
from typing import Any

from sphinx.util.osutil import relative_uri

from polybook.notebooks.compat_line import human_day, line_parts

LINK = "compat/"  # the record and its reports, in the site


_NOTE = re.compile(r'<div class="pb-provenance ([^"]*)">\s*<p>(.*?)</p>', re.S)
_MADE = re.compile(r"\(([^()]*)\)\s*$")


def host_notes(body: str) -> dict[str, str]:
    """Each framework's provenance note on the page (its outputs from another host)."""
    found: dict[str, str] = {}
    for classes, text in _NOTE.findall(body):
        for name in classes.split():
            if name.startswith("pb-from-"):
                found.setdefault(name.removeprefix("pb-from-"), html.unescape(text))
    return found


def _made_with(note: str) -> str:
    """``… (NVIDIA H200, driver …; torch 2.11.0; 2026-11-27)`` as ``torch 2.11.0 on NVIDIA
    H200``; "" where the note names no version."""
    found = _MADE.search(note)
    parts = found.group(1).split("; ") if found else []
    if len(parts) == 3:
        return f"{parts[1]} on {parts[0].split(',')[0]}"
    return parts[0].split(", ")[0] if len(parts) == 2 else ""


def hosts_html(notes: dict[str, str], tabs: list[str], names: dict[str, str]) -> str:
    """One line saying which tabs' outputs came from which host ("" where all are this
    build's)."""
    if not notes:
        return ""
    said = [
        f"{html.escape(names.get(fw, fw))}: {html.escape(notes[fw])}" for fw in tabs if fw in notes
    ]
    rest = [names.get(fw, fw) for fw in tabs if fw not in notes]
    if rest:
        said.append(f"{', '.join(rest)}: this site's build")
    return (
        f'<p class="pb-hosts">{html.escape("Where the outputs come from. " + "; ".join(said))}.</p>'
    )


def line_html(
    results: list[dict[str, Any]],
    page: str,
    framework: str,
    here: str,
    hidden: bool,
    note: str = "",
) -> str:
    """``page``'s line for ``framework`` as HTML ("" where it was not checked); ``here``:
    the page's address in the site, for the links to the reports; ``note``: where its
    outputs came from when another host made them."""
    built, said, day = line_parts(results, page, framework)
    if not said:
        return ""
    built = _made_with(note) or built if note else built
    parts = [f"Outputs from {html.escape(built)}"] if built else []
    for text, result in said:
        status = html.escape(str(result.get("status", "")))
        part = f'<span class="pb-compat-{status}">{html.escape(text)}</span>'
        report = str(result.get("report") or "")
        if report and result.get("status") != "works":
            path, _, anchor = report.partition("#")
            href = html.escape(relative_uri(here, LINK + path) + (f"#{anchor}" if anchor else ""))
            part += f' (<a class="pb-compat-details" href="{href}">details</a>)'
        parts.append(part)
    if day:
        parts.append(f'<span class="pb-compat-day">checked {html.escape(human_day(day))}</span>')
    follow = f'data-pb-follow="{html.escape(framework)}"' + (" hidden" if hidden else "")
    return f'<p class="pb-compat-line" {follow}><span>{" · ".join(parts)}</span></p>'


def lines_html(
    results: list[dict[str, Any]],
    page: str,
    tabs: list[str],
    here: str,
    notes: dict[str, str] | None = None,
) -> str:
    """Every framework's line of ``page``, the first framework's shown."""
    notes = notes or {}
    lines = [
        line_html(results, page, fw, here, index > 0, notes.get(fw, ""))
        for index, fw in enumerate(tabs)
    ]
    shown = "".join(lines)
    return f'<div class="pb-compat-lines">{shown}</div>' if shown else ""


def insert_after_title(body: str, lines: str) -> str:
    """``body`` with ``lines`` after its first heading (unchanged where it has none)."""
    end = body.find("</h1>")
    if not lines or end < 0:
        return body
    end += len("</h1>")
    return body[:end] + lines + body[end:]
