"""What a build of a few pages can skip (an edit's, in the Sphinx process ``polybook serve``
keeps): forks to read them, the static files when none changed, and the page that lists an
edited page when what it shows of it did not change.

Sphinx reads in worker processes whenever it may, for one page too (a fork, then the doctree
pickled back): a build reading a few pages reads them in its own process.

Sphinx copies every static file (the theme's, the site's: d2l-en's 372) at each build, and
writes again each page whose toctree lists a page it read again, since the title shown
there may have changed. For a prose edit neither is needed: the static files are copied
only when their sources or the published folder's names changed since the last copy in
this process, and a listing page is written only when the title or the headings of a page
it lists changed (its numbers are Sphinx's own concern: they move a page's numbers, which
Sphinx rewrites). The log says what was skipped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from polybook.fsutil import write_atomic

logger = logging.getLogger(__name__)
STAMP_FILE = "pb-static-stamp.json"  # in the doctrees' folder: the last copy's sources


def _tree_stamp(folder: Path) -> list[tuple[str, int, int]]:
    found = []
    for top, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(top, name)
            stat = os.stat(path)
            found.append((path, stat.st_mtime_ns, stat.st_size))
    return sorted(found)


def _stable(value: object) -> str:
    """``value`` as text that is the same in every process (sets in sorted order)."""
    if isinstance(value, (set, frozenset)):
        return repr(sorted(map(repr, value)))
    if isinstance(value, dict):
        return repr(sorted((repr(k), _stable(v)) for k, v in value.items()))
    return repr(value)


def _sources_stamp(builder: StandaloneHTMLBuilder) -> list[Any]:
    """The static sources (the book's static folders, logo, favicon) and the configuration
    (the static templates read it)."""
    config = builder.config
    values = sorted((item.name, _stable(item.value)) for item in config)
    sources = [builder.confdir / entry for entry in config.html_static_path]
    files = [builder.confdir / name for name in (config.html_logo, config.html_favicon) if name]
    stamps = [_tree_stamp(folder) for folder in sources]
    singles = [(str(f), f.stat().st_mtime_ns) for f in files if f.is_file()]
    return [stamps, singles, values]


def _published(builder: StandaloneHTMLBuilder) -> list[str]:
    out = builder._static_dir
    return sorted(p.name for p in out.iterdir()) if out.is_dir() else []


# Emitted once the static files are copied, before any page names their checksums
# (``?v=``): what rewrites a published file does it then, for the pages to name the result.
STATIC_COPIED = "polybook-static-copied"


def _forget_checksums() -> None:
    """Sphinx keeps each asset's checksum for its process's life: a kept process would name
    a file's first copy in every later page."""
    from sphinx.builders.html import _assets

    clear = getattr(getattr(_assets, "_file_checksum_inner", None), "cache_clear", None)
    if clear is not None:
        clear()


class StaticCopies:
    """The builder's ``copy_static_files``, skipped when the sources are those of the last
    copy and the published folder holds what it held after the last build (kept beside
    the doctrees, for the next process too)."""

    def __init__(self, app: Sphinx, builder: StandaloneHTMLBuilder) -> None:
        self.app = app
        self.builder = builder
        self.copy = builder.copy_static_files
        self.kept = Path(builder.doctreedir) / STAMP_FILE
        self.sources: list[Any] | None = None  # this build's, once copied or found current

    def copy_static_files(self) -> None:
        sources = _sources_stamp(self.builder)
        stamp = json.dumps([sources, _published(self.builder)])
        if self.kept.is_file() and self.kept.read_text(encoding="utf-8") == stamp:
            logger.info("static files unchanged: not copied")
        else:
            self.kept.unlink(missing_ok=True)  # a copy cut short is no copy
            self.copy()
            self.app.events.emit(STATIC_COPIED)
        _forget_checksums()
        self.sources = sources

    def finished(self, app: Sphinx, exception: BaseException | None) -> None:
        if exception is None and self.sources is not None:
            write_atomic(self.kept, json.dumps([self.sources, _published(self.builder)]))
        self.sources = None


FEW_PAGES = 8  # read in the process itself (a fork per worker costs more)


class ListedPages:
    """What each page read again showed in the pages that list it, before it was read;
    whether the book's listings (its navigation) are as they were."""

    def __init__(self) -> None:
        self.before: dict[str, str] = {}
        self.held: dict[str, set[str]] = {}  # listings left out of this build's writes
        self.whole = False  # no page added or removed, each page read was noted
        self.unchanged = False  # and shows what it showed: every listing is as it was
        self.parallel = 0  # the process's reading processes, while a few pages are read

    @staticmethod
    def shown(env: BuildEnvironment, docname: str) -> str:
        """The title and the headings of ``docname`` as a listing shows them."""
        title = env.titles.get(docname)
        toc = env.tocs.get(docname)
        text = title.astext() if title is not None else ""
        return text + "\0" + (toc.pformat() if toc is not None else "")

    def outdated(
        self,
        app: Sphinx,
        env: BuildEnvironment,
        added: set[str],
        changed: set[str],
        removed: set[str],
    ) -> list[str]:
        self.before = {name: self.shown(env, name) for name in changed if name in env.tocs}
        self.whole = not added and not removed
        return []

    def reading(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """Few pages to read: read here, not in forks (until the reading is done)."""
        self.whole = self.whole and all(name in self.before for name in docnames)
        if len(docnames) <= FEW_PAGES and app.parallel > 1:
            self.parallel, app.parallel = app.parallel, 1

    def read(self, app: Sphinx, env: BuildEnvironment) -> None:
        if self.parallel:
            app.parallel, self.parallel = self.parallel, 0

    def write_started(self, app: Sphinx, builder: Any) -> None:
        """Listings of pages whose title and headings are as they were: not written for
        them (Sphinx adds ``files_to_rebuild``'s pages to the written ones)."""
        env = builder.env
        same = {name for name, before in self.before.items() if self.shown(env, name) == before}
        self.unchanged = self.whole and same == set(self.before)
        for name in sorted(same):
            if name in env.files_to_rebuild:
                self.held[name] = env.files_to_rebuild.pop(name)
        if self.held:
            logger.info("listing pages not rewritten for: %s", ", ".join(sorted(self.held)))
        self.before = {}

    def finished(self, app: Sphinx, exception: BaseException | None) -> None:
        app.env.files_to_rebuild.update(self.held)  # the environment as Sphinx keeps it
        self.held = {}


def _builder_inited(app: Sphinx) -> None:
    if isinstance(app.builder, StandaloneHTMLBuilder):
        copies = StaticCopies(app, app.builder)
        app.builder.copy_static_files = copies.copy_static_files  # type: ignore[method-assign]
        app.connect("build-finished", copies.finished, priority=900)  # after what adds files


LISTED = ListedPages()


def setup(app: Sphinx) -> None:
    app.add_event(STATIC_COPIED)
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", LISTED.outdated)
    app.connect("env-before-read-docs", LISTED.reading, priority=900)  # after others add any
    app.connect("env-updated", LISTED.read, priority=100)
    app.connect("write-started", LISTED.write_started)
    app.connect("build-finished", LISTED.finished)
