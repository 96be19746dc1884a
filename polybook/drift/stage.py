"""The drift stage's entry point: two sides compared notebook by notebook."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.config.schema import DriftSection
from polybook.diagnostics import Reporter
from polybook.drift.compare import Settings, compare_notebooks
from polybook.drift.model import CellDrift, DriftReport, NotebookSummary, Side
from polybook.parallel import map_pages

logger = logging.getLogger("polybook")


def _has_code(nb: NotebookNode) -> bool:
    return any(c.cell_type == "code" for c in nb.cells)


@dataclass(frozen=True)
class Comparison:
    """What a comparison reads: the side before and the side after."""

    before: Side
    after: Side


def compare_sides(
    comparison: Comparison, drift: DriftSection, tabs: tuple[str, ...], reporter: Reporter
) -> DriftReport:
    """Every notebook both sides hold, compared (``drift``, ``[drift]``, says how); the
    frameworks in the book's ``tabs`` order."""
    settings = Settings.of(drift)
    before, after = comparison.before, comparison.after
    order = {fw: index for index, fw in enumerate(tabs)}
    places = sorted(
        set(before.notebooks) | set(after.notebooks),
        key=lambda place: (place[0], order.get(place[1], len(order)), place[1]),
    )
    shared = [
        place
        for place in places
        if place in before.notebooks
        and place in after.notebooks
        and any(_has_code(side.notebooks[place]) for side in (before, after))
    ]
    one_sided = [
        (*place, before.label if place in before.notebooks else after.label)
        for place in places
        if (place in before.notebooks) != (place in after.notebooks)
    ]

    def compare(place: tuple[str, str]) -> tuple[list[CellDrift], NotebookSummary]:
        digests = (before.digests.get(place), after.digests.get(place))
        old, new = before.notebooks[place], after.notebooks[place]
        return compare_notebooks(place, old, new, settings, digests)

    compared = map_pages(compare, shared)  # in forked processes, on a big book
    cells = [cell for found, _ in compared for cell in found]
    summaries = [summary for _, summary in compared]
    frameworks = {fw for _, fw in before.notebooks} | {fw for _, fw in after.notebooks}
    return DriftReport(
        before.label,
        after.label,
        {fw: v for fw, v in before.versions.items() if fw in frameworks},
        {fw: v for fw, v in after.versions.items() if fw in frameworks},
        tuple(cells),
        tuple(summaries),
        tuple(one_sided),
        {"rtol": settings.rtol, "atol": settings.atol, "image_threshold": settings.image_threshold},
    )
