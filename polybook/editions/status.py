"""What each translated page lags behind its source page: pages missing or extra, code
cells that differ (per framework), labels and references the source has and the
translation lacks, and prose the source changed since the page was last synced.

Pages pair by path. ``sync.json`` in the translation's root records, per page, the source
page's digest when the translation was last synced; a page never synced is compared by its
code and structure only. (The command reads the books: :mod:`polybook.commands.editions`.)"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from polybook.config.schema import Edition
from polybook.diagnostics import Location, PolybookError
from polybook.fsutil import write_atomic
from polybook.library.usage import cell_digest
from polybook.nb import Notebooks

SYNC_FILE = "sync.json"  # in the translation's root: the source digests it was synced with
MARK = re.compile(r":(label|eqlabel|numref|eqref|ref|cite):`([^`]+)`")


@dataclass
class PageStatus:
    """One page of a translation, beside its source page."""

    page: str
    state: str  # "paired", "missing" (the source's only), "extra" (the translation's only)
    code: dict[str, list[int]] = field(default_factory=dict)  # framework -> its cells (1-based)
    labels: list[str] = field(default_factory=list)  # the source's marks the page lacks
    stale: bool | None = None  # the source changed since the sync; None: never synced

    def kinds(self) -> list[str]:
        found = [self.state] if self.state != "paired" else []
        found += ["code"] if self.code else []
        found += ["labels"] if self.labels else []
        return found + (["stale"] if self.stale else [])


@dataclass
class EditionStatus:
    source: str  # the source edition's name ("" : this book)
    translation: str
    lang: str
    pages: list[PageStatus]

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def page_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def marks(text: str) -> set[str]:
    """The labels and references of a page: ``label:sec_intro``, ``numref:fig_x``…"""
    return {f"{kind}:{name.strip()}" for kind, name in MARK.findall(text)}


def _codes(notebooks: Notebooks) -> dict[str, dict[str, list[str]]]:
    """page -> framework -> its code cells' meanings."""
    found: dict[str, dict[str, list[str]]] = {}
    for fw, pages in notebooks.items():
        for page, nb in pages:
            cells = [cell_digest(c.source) for c in nb.cells if c.cell_type == "code"]
            found.setdefault(page, {})[fw] = cells
    return found


def differing(source: list[str], translation: list[str]) -> list[int]:
    """The translation's code cells (1-based) that are not the source's, in order; a cell the
    translation lacks counts as the one where it would be."""
    cells: list[int] = []
    matcher = difflib.SequenceMatcher(a=source, b=translation, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            cells += list(range(j1 + 1, j2 + 1)) or [j1 + 1]
    return sorted(set(cells))


def read_sync(root: Path) -> dict[str, str]:
    try:
        data = json.loads((root / SYNC_FILE).read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in data.get("pages", {}).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def compare(
    source: Path, source_notebooks: Notebooks, translation: Path, translation_notebooks: Notebooks
) -> list[PageStatus]:
    """Every page of either book (the books at ``source`` and ``translation``, split into
    those notebooks), sorted by path."""
    src, tr = _codes(source_notebooks), _codes(translation_notebooks)
    synced = read_sync(translation)
    found = []
    for page in sorted({*src, *tr}):
        if page not in tr or page not in src:
            found.append(PageStatus(page, "missing" if page not in tr else "extra"))
            continue
        code = {
            fw: cells
            for fw in src[page]
            if fw in tr[page] and (cells := differing(src[page][fw], tr[page][fw]))
        }
        ours = (translation / page).read_text(encoding="utf-8")
        theirs = (source / page).read_text(encoding="utf-8")
        lacking = sorted(m for m in marks(theirs) - marks(ours) if not m.startswith("cite:"))
        stale = synced[page] != page_digest(source / page) if page in synced else None
        found.append(PageStatus(page, "paired", code, lacking, stale))
    return found


def pairs(editions: tuple[Edition, ...]) -> list[tuple[Edition | None, Edition | None]]:
    """(source, translation), None for this book: this book against its source (an edition
    with ``source = true``), else every edition (``[edition-<name>]``) against this book."""
    if not editions:
        message = "the book declares no edition: add an [edition-<name>] section with its root"
        raise PolybookError(Location("config.ini"), message, "editions")
    sources = [e for e in editions if e.source]
    if sources:
        return [(e, None) for e in sources]
    return [(None, e) for e in editions]


def sync(root: Path, editions: tuple[Edition, ...], pages: list[str]) -> list[str]:
    """Record the source's digest of ``pages`` (paths relative to the book at ``root``) as
    synced; the source is the one of ``editions`` with ``source = true``."""
    sources = [e for e in editions if e.source]
    if len(sources) != 1:
        message = "sync needs exactly one source edition: `source = true` in its section"
        raise PolybookError(Location("config.ini"), message, "editions")
    source = sources[0].root
    record = read_sync(root)
    for page in pages:
        if not (source / page).is_file():
            raise PolybookError(Location(page), f"the source has no {page}", "editions")
        record[page] = page_digest(source / page)
    data = {"source": sources[0].name, "pages": dict(sorted(record.items()))}
    write_atomic(root / SYNC_FILE, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return pages
