"""What each translated page lags behind its source page: pages missing or extra, code
cells that differ (per framework), labels and references the source has and the
translation lacks, and prose the source changed since the page was last synced.

Pages pair by path. ``sync.json`` in the translation's root records, per page, the source
page's digest when the translation was last synced; a page never synced is compared by its
code and structure only."""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from polybook.config import BookConfig, load_config
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.fsutil import write_atomic
from polybook.library.usage import cell_digest
from polybook.nb import Notebooks
from polybook.source.book import BookInvalid, load_book
from polybook.source.split import split_book

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


def _split(config: BookConfig, reporter: Reporter) -> Notebooks:
    try:
        book = load_book(config, reporter)
    except BookInvalid:
        message = f"the edition at {config.root} does not read: see its errors above"
        where = Location(str(config.root / "config.ini"))
        raise PolybookError(where, message, "editions") from None
    return split_book(book, config.build.tabs, reporter, check=False)


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


def compare(source: BookConfig, translation: BookConfig, reporter: Reporter) -> list[PageStatus]:
    """Every page of either book, sorted by path."""
    src, tr = _codes(_split(source, reporter)), _codes(_split(translation, reporter))
    synced = read_sync(translation.root)
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
        ours = (translation.root / page).read_text(encoding="utf-8")
        theirs = (source.root / page).read_text(encoding="utf-8")
        lacking = sorted(m for m in marks(theirs) - marks(ours) if not m.startswith("cite:"))
        stale = synced[page] != page_digest(source.root / page) if page in synced else None
        found.append(PageStatus(page, "paired", code, lacking, stale))
    return found


def pairs(config: BookConfig) -> list[tuple[str, BookConfig, str, BookConfig]]:
    """(source name, source, translation name, translation): this book against its source
    (an edition with ``source = true``), else every edition against this book."""
    sources = [e for e in config.editions if e.source]
    if sources:
        return [(e.name, _load(e.root, e.line), config.project.name, config) for e in sources]
    return [(config.project.name, config, e.name, _load(e.root, e.line)) for e in config.editions]


def _load(root: Path, line: int) -> BookConfig:
    if not (root / "config.ini").is_file():
        message = f"edition {root} is no book: it has no config.ini"
        raise PolybookError(Location("config.ini", line), message, "editions")
    return load_config(root)


def status(config: BookConfig, reporter: Reporter) -> list[EditionStatus]:
    if not config.editions:
        message = "the book declares no edition: add an [edition-<name>] section with its root"
        raise PolybookError(Location("config.ini"), message, "editions")
    found = []
    for source_name, source, name, translation in pairs(config):
        pages = compare(source, translation, reporter)
        found.append(EditionStatus(source_name, name, translation.project.lang, pages))
    return found


def sync(config: BookConfig, pages: list[str]) -> list[str]:
    """Record the source's digest of ``pages`` (paths relative to the book) as synced."""
    sources = [e for e in config.editions if e.source]
    if len(sources) != 1:
        message = "sync needs exactly one source edition: `source = true` in its section"
        raise PolybookError(Location("config.ini"), message, "editions")
    source = sources[0].root
    record = read_sync(config.root)
    for page in pages:
        if not (source / page).is_file():
            raise PolybookError(Location(page), f"the source has no {page}", "editions")
        record[page] = page_digest(source / page)
    data = {"source": sources[0].name, "pages": dict(sorted(record.items()))}
    write_atomic(config.root / SYNC_FILE, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return pages
