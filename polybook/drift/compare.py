"""Two runs of a notebook compared cell by cell: errors that came or went, warnings that
came or went, and each output by meaning (:mod:`polybook.drift.numbers`,
:mod:`polybook.drift.images`), volatile parts left out (:mod:`polybook.drift.volatile`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from nbformat import NotebookNode

from polybook.config.schema import DriftSection
from polybook.drift.align import align, code_key
from polybook.drift.images import compare_pixels, svg_drawing
from polybook.drift.model import CellChange, CellDrift, Kind, NotebookSummary
from polybook.drift.numbers import compare_text
from polybook.drift.outputs import SVG, CellOutputs, Part, read_outputs
from polybook.drift.volatile import Volatile
from polybook.library.usage import cell_digest
from polybook.meta import cell_meta, notebook_meta

STOPPED = "the run stopped at this cell: it timed out, or the kernel died"


@dataclass(frozen=True)
class Settings:
    """How outputs are compared (``[drift]``)."""

    rtol: float = 1e-5
    atol: float = 1e-8
    image_threshold: float = 0.001
    volatile: Volatile = field(default_factory=Volatile)

    @classmethod
    def of(cls, drift: DriftSection) -> Settings:
        volatile = Volatile.of(drift.volatile, drift.ignore)
        return cls(drift.rtol, drift.atol, drift.image_threshold, volatile)


def _change(kind: Kind, detail: str) -> list[CellChange]:
    return [CellChange(kind, detail)]


def _texts(before: Part, after: Part, settings: Settings) -> CellChange | None:
    clean = settings.volatile.clean
    if before.mime == SVG:
        old, new = svg_drawing(clean(before.text)), svg_drawing(clean(after.text))
    else:
        old, new = clean(before.text), clean(after.text)
    verdict, detail = compare_text(old, new, settings.rtol, settings.atol)
    if verdict == "same":
        return None
    if before.mime == SVG:
        return CellChange("image" if verdict == "changed" else "tolerance", f"SVG: {detail}")
    return CellChange(verdict, f"{before.channel}: {detail}")


def _images(before: Part, after: Part, settings: Settings) -> CellChange | None:
    if SVG in (before.mime, after.mime):
        if before.mime != after.mime:
            return CellChange("image", f"{before.mime} → {after.mime}")
        return _texts(before, after, settings)
    if before.data == after.data:
        return None
    found = compare_pixels(before.data, after.data, settings.image_threshold)
    if found is None:
        return CellChange("image", "an image that does not decode")
    if found.score > settings.image_threshold or found.before_size != found.after_size:
        return CellChange("image", found.describe(), found.difference)
    if found.score > 0:
        return CellChange("tolerance", f"image: {found.describe()}, under the threshold")
    return None


def _parts(
    before: tuple[Part, ...], after: tuple[Part, ...], settings: Settings
) -> list[CellChange]:
    """The changes between two cells' outputs: the first text and each image that changed."""
    kinds = [(p.channel, p.is_image) for p in before]
    if kinds != [(p.channel, p.is_image) for p in after]:
        names = ", ".join(p.channel for p in before) or "none"
        now = ", ".join(p.channel for p in after) or "none"
        return _change("changed", f"outputs {names} → {now}")
    found: list[CellChange] = []
    for old, new in zip(before, after, strict=True):
        change = _images(old, new, settings) if old.is_image else _texts(old, new, settings)
        if change is not None:
            found.append(change)
    texts = [c for c in found if c.kind in ("changed", "tolerance") and not c.difference]
    first = next((c for c in texts if c.kind == "changed"), texts[0] if texts else None)
    images = [c for c in found if c not in texts]
    return ([first] if first else []) + images


def _warnings(before: CellOutputs, after: CellOutputs, settings: Settings) -> list[CellChange]:
    old = Counter(settings.volatile.clean(w) for w in before.warnings)
    new = Counter(settings.volatile.clean(w) for w in after.warnings)
    found = []
    if new - old:
        found += _change("new-warning", "; ".join(sorted((new - old).elements())))
    if old - new:
        found += _change("gone-warning", "; ".join(sorted((old - new).elements())))
    return found


def compare_cells(before: CellOutputs, after: CellOutputs, settings: Settings) -> list[CellChange]:
    """What changed from one run of a cell to another: its error, its warnings, then, when it
    failed on both sides or on neither, its outputs."""
    clean = settings.volatile.clean
    found: list[CellChange] = []
    if after.error and not before.error:
        found += _change("new-error", after.error)
    elif before.error and not after.error:
        found += _change("fixed-error", before.error)
    elif clean(before.error) != clean(after.error):
        found += _change("changed", f"the error changed: {before.error} → {after.error}")
    found += _warnings(before, after, settings)
    if bool(before.error) == bool(after.error):
        found += _parts(before.parts, after.parts, settings)
    return found


def _stopped_at(nb: NotebookNode, cells: list[NotebookNode]) -> int | None:
    """Where a failed run stopped without an error output (a timeout, a dead kernel): the
    first cell that should have run and did not."""
    if notebook_meta(nb).run is not None:
        return None
    outputs = [read_outputs(c) for c in cells]
    if any(o.error for o in outputs) or not any(o.ran for o in outputs):
        return None
    return next((i for i, o in enumerate(outputs) if not o.ran and not o.skipped), None)


def _code_cells(nb: NotebookNode) -> list[NotebookNode]:
    return [c for c in nb.cells if c.cell_type == "code"]


def compare_notebooks(
    place: tuple[str, str],
    before: NotebookNode,
    after: NotebookNode,
    settings: Settings,
    digests: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (None, None),
) -> tuple[list[CellDrift], NotebookSummary]:
    """The changed cells of two runs of notebook ``place`` (page, framework); ``digests``:
    each side's cells by digest of their code, for a side that keeps no code (frozen
    outputs)."""
    page, framework = place
    old_cells, new_cells = _code_cells(before), _code_cells(after)
    if digests[0] is not None or digests[1] is not None:
        keys = [
            d or tuple(cell_digest(c.source) for c in cells)
            for d, cells in zip(digests, (old_cells, new_cells), strict=True)
        ]
    else:
        keys = [tuple(c.source for c in cells) for cells in (old_cells, new_cells)]
        if keys[0] != keys[1]:  # read without comments and layout only when they differ
            keys = [tuple(code_key(c.source) for c in cells) for cells in (old_cells, new_cells)]
    stops = (_stopped_at(before, old_cells), _stopped_at(after, new_cells))
    drifts: list[CellDrift] = []
    not_compared = 0
    for pair in align(keys[0], keys[1]):
        if pair.before is None or pair.after is None:
            not_compared += 1
            continue
        old, new = read_outputs(old_cells[pair.before]), read_outputs(new_cells[pair.after])
        changes: list[CellChange] = []
        if stops[1] == pair.after and stops[0] != pair.before:
            changes = _change("new-error", STOPPED)
        elif stops[0] == pair.before and stops[1] != pair.after:
            changes = _change("fixed-error", STOPPED)
        elif not (old.ran and new.ran) or old.skipped or new.skipped:
            not_compared += 1
            continue
        else:
            changes = compare_cells(old, new, settings)
        if changes:
            cell = new_cells[pair.after]
            code = cell.source or old_cells[pair.before].source
            drifts.append(
                CellDrift(
                    page,
                    cell_meta(cell).line or cell_meta(old_cells[pair.before]).line,
                    framework,
                    pair.after + 1,
                    code,
                    tuple(changes),
                    old.shown,
                    new.shown,
                )
            )
    summary = NotebookSummary(page, framework, len(new_cells), len(drifts), not_compared)
    return drifts, summary
