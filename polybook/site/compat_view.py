"""The "works with" line under each section's title, written into the page when it is built
(one line per framework, the reader's shown: it works without JavaScript and moves nothing
once the page is shown): the version the page's outputs came from, each target's result, the
details of what differed and the day it was checked."""

from __future__ import annotations

import html
from typing import Any

from sphinx.util.osutil import relative_uri

from polybook.notebooks.compat_line import human_day, line_parts

LINK = "compat/"  # the record and its reports, in the site


def line_html(
    results: list[dict[str, Any]], page: str, framework: str, here: str, hidden: bool
) -> str:
    """``page``'s line for ``framework`` as HTML ("" where it was not checked); ``here``:
    the page's address in the site, for the links to the reports."""
    built, said, day = line_parts(results, page, framework)
    if not said:
        return ""
    parts = [f"Outputs from {html.escape(built)}"] if built else []
    for text, result in said:
        status = html.escape(str(result.get("status", "")))
        part = f'<span class="pb-compat-{status}">{html.escape(text)}</span>'
        report = str(result.get("report") or "")
        if report and result.get("status") != "works":
            href = html.escape(relative_uri(here, LINK + report))
            part += f' (<a class="pb-compat-details" href="{href}">details</a>)'
        parts.append(part)
    if day:
        parts.append(f'<span class="pb-compat-day">checked {html.escape(human_day(day))}</span>')
    follow = f'data-pb-follow="{html.escape(framework)}"' + (" hidden" if hidden else "")
    return f'<p class="pb-compat-line" {follow}><span>{" · ".join(parts)}</span></p>'


def lines_html(results: list[dict[str, Any]], page: str, tabs: list[str], here: str) -> str:
    """Every framework's line of ``page``, the first framework's shown."""
    lines = [line_html(results, page, fw, here, index > 0) for index, fw in enumerate(tabs)]
    shown = "".join(lines)
    return f'<div class="pb-compat-lines">{shown}</div>' if shown else ""


def insert_after_title(body: str, lines: str) -> str:
    """``body`` with ``lines`` after its first heading (unchanged where it has none)."""
    end = body.find("</h1>")
    if not lines or end < 0:
        return body
    end += len("</h1>")
    return body[:end] + lines + body[end:]
