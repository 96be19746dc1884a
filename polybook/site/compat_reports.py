"""The drift reports of ``polybook compat`` as pages of the site (``compat/reports/NAME``):
the site's header and navigation around them, a way back to the compatibility page, each
section named by its title, what changed first and the package lists last, in the site's
colours and at a phone's width. The report files themselves stay as ``polybook compat``
wrote them (one file each, readable offline)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polybook.render.myst import Lines
from polybook.render.page import Page

FOLDER = "compat/reports"
_BODY = re.compile(r"<body>(.*)</body>", re.S)
_SECTION = re.compile(r"<section><h2>(.*?)</h2>.*?</section>", re.S)
_SOURCE = re.compile(r"(?<![\w/.-])([\w-]+(?:/[\w-]+)*)\.md\b")
# Sections in the order a reader wants them: what changed, then where, then the packages.
ORDER = ("Changed cells", "Pages", "Within tolerance", "Packages")


def _label(data: dict[str, Any], name: str) -> str:
    """``pytorch-newest`` as "PyTorch with torch 2.14.1"; ``pytorch-colab`` as "PyTorch
    with colab (torch 2.8.0)"."""
    fw, _, target = name.partition("-")
    display = data.get("frameworks", {}).get(fw, {}).get("display", fw)
    version = next(
        (
            r.get("version", "")
            for r in data.get("results", [])
            if (r["framework"], r["target"]) == (fw, target)
        ),
        "",
    )
    shown = version if target == "newest" else f"{target} ({version})" if version else target
    return f"{display} with {shown}"


def _rank(title: str) -> int:
    return next((i for i, t in enumerate(ORDER) if title.startswith(t)), len(ORDER) - 1)


def report_body(report: str, title_of: Callable[[str], str]) -> str:
    """The report's body for the site: its heading and style left to the page, its
    sections in reading order, sources named by their titles (links already lead to the
    pages)."""
    found = _BODY.search(report)
    body = found.group(1) if found else report
    body = re.sub(r"<h1>.*?</h1>", "", body, count=1, flags=re.S)
    sections = list(_SECTION.finditer(body))
    if sections:
        head = body[: sections[0].start()]
        tail = body[sections[-1].end() :]
        ordered = sorted(sections, key=lambda m: _rank(m.group(1)))
        body = head + "\n".join(m.group(0) for m in ordered) + tail
    parts = re.split(r"(<[^>]*>)", body)  # rename sources in text, never in markup
    for index in range(0, len(parts), 2):
        parts[index] = _SOURCE.sub(lambda m: title_of(m.group(1) + ".md"), parts[index])
    return f'<div class="pb-report">{"".join(parts)}</div>'


def report_pages(
    folder: Path, data: dict[str, Any], title_of: Callable[[str], str], back: str
) -> list[Page]:
    """A page of the site for each report in ``folder`` (``reports/*.html``); ``back``:
    the compatibility page's docname."""
    pages = []
    for path in sorted(folder.glob("reports/*.html")):
        body = report_body(path.read_text(encoding="utf-8"), title_of)
        text = (
            f"# What changed: {_label(data, path.stem)}\n\n"
            f"Back to {{doc}}`/{back}`.\n\n```{{raw}} html\n{body}\n```\n"
        )
        page = Page(f"{FOLDER}/{path.stem}", Lines())
        page.lines.add(text, 1)
        pages.append(page)
    return pages
