"""The site's diagnostics, kept per page across builds.

Sphinx reads and writes again only the pages that changed, and warns only about those: a
build that changed one page would forget the warnings of the others. So each Sphinx run's
diagnostics (``polybook.render.sphinx.log`` writes them, with what the run did) update a
store, ``_build/site-diagnostics.json``: docname -> that page's diagnostics, each with the
phase that emits it. A run replaces the ``read`` entries of the pages it read, the
``write`` entries of the pages it wrote, the ``check`` entries when it checked consistency
and the ``run`` entries (and those in no page, under ``""``) always; it keeps the others.
Pages no longer in the site drop theirs. Every build reports the whole store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from polybook.diagnostics import Diagnostic, Reporter
from polybook.fsutil import write_atomic

STORE = "site-diagnostics.json"
NO_PAGE = ""  # the key of diagnostics located in no page: every run emits them again
PHASES = ("read", "check", "write", "run")

Entry = tuple[str, Diagnostic]  # (phase, diagnostic)
Store = dict[str, list[Entry]]  # docname -> entries


@dataclass
class SphinxRun:
    """What one Sphinx run said, and which pages it read and wrote."""

    entries: Store = field(default_factory=dict)
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    checked: bool = False
    found: set[str] | None = None  # every page of the site; None when the run crashed


def read_run(path: Path) -> SphinxRun:
    """Parse the diagnostics file of a Sphinx run (one JSON object a line)."""
    run = SphinxRun()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return run
    for raw in lines:
        try:
            data = json.loads(raw)
        except ValueError:
            continue  # a line cut short by a crash
        event = data.get("event")
        if event in ("read", "written"):
            (run.read if event == "read" else run.written).add(str(data["docname"]))
        elif event == "checked":
            run.checked = True
        elif event == "found":
            run.found = {str(name) for name in data["docnames"]}
        elif "message" in data:
            phase = str(data.get("phase") or "run")
            docname = str(data.get("docname") or NO_PAGE)
            run.entries.setdefault(docname, []).append(
                (phase if phase in PHASES else "run", Diagnostic.from_json(data))
            )
    return run


def _replaced(phase: str, docname: str, run: SphinxRun) -> bool:
    """Whether ``run`` emitted again what an entry of this phase and page says."""
    if phase == "read":
        return docname in run.read
    if phase == "write":
        return docname in run.written
    if phase == "check":
        return run.checked
    return True


def _order(entry: Entry) -> tuple[int, int, str]:
    phase, diag = entry
    return diag.location.line, PHASES.index(phase), diag.message


def merge(store: Store, run: SphinxRun, fresh: bool = False) -> Store:
    """The store after ``run``; a ``fresh`` run read every page, so it replaces all."""
    merged: Store = {}
    for docname, entries in ({} if fresh else store).items():
        if docname == NO_PAGE or (run.found is not None and docname not in run.found):
            continue
        kept = [e for e in entries if not _replaced(e[0], docname, run)]
        if kept:
            merged[docname] = kept
    for docname, entries in run.entries.items():
        target = merged.setdefault(docname, [])
        target.extend(e for e in entries if e not in target)
    return {name: sorted(merged[name], key=_order) for name in sorted(merged)}


def load(path: Path) -> Store | None:
    """The store written by the last build, or None when there is none (or it is bad)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            str(name): [(str(e["phase"]), Diagnostic.from_json(e)) for e in entries]
            for name, entries in data.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save(path: Path, store: Store) -> None:
    data = {
        name: [{"phase": phase, **diag.to_json()} for phase, diag in entries]
        for name, entries in store.items()
    }
    write_atomic(path, json.dumps(data, indent=1))


def report(store: Store, reporter: Reporter) -> None:
    """Give ``reporter`` every diagnostic of the store, each once, page by page."""
    found = (diag for entries in store.values() for _, diag in entries)
    reporter.forward(dict.fromkeys(found))
