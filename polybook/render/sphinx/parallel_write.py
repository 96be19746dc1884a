"""Sphinx's HTML builder with its writers resolving their own pages.

Sphinx writes pages in parallel, but its main process resolves every page (references,
citations, the post-transforms) and feeds the search index one page after another while the
writers wait: on d2l-en, the main process was the build's critical path. Here each writer
process resolves, indexes and writes its own share; what the main process must keep from
it, the images the pages use and their part of the search index, comes back with the share
and is merged in. Resolution's warnings come back as the writers' always did.
"""

from __future__ import annotations

from typing import Any

from sphinx import builders
from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.search import IndexBuilder
from sphinx.util.parallel import ParallelTasks

from polybook.render.sphinx.deferred import deferring, later

# The search index's parts (IndexBuilder's), kept per page or per word.
PER_PAGE = ("_titles", "_filenames", "_all_titles", "_index_entries")
PER_WORD = ("_mapping", "_title_mapping")
# Shares per writer: smaller shares even out the writers' ends.
SHARES_PER_WRITER = 4

Written = tuple[dict[str, str], dict[str, dict[str, Any]]]


def _fresh_index(indexer: Any) -> None:
    """The indexer records the pages fed from now on only (in a writer's process)."""
    if indexer is not None:
        for part in (*PER_PAGE, *PER_WORD):
            setattr(indexer, part, {})


def _index_parts(indexer: Any) -> dict[str, dict[str, Any]]:
    if indexer is None:
        return {}
    return {part: getattr(indexer, part) for part in (*PER_PAGE, *PER_WORD)}


def merge_index(indexer: Any, parts: dict[str, dict[str, Any]]) -> None:
    """Add a writer's part of the search index to ``indexer`` (the main process's)."""
    if indexer is None:
        return
    for part in PER_PAGE:
        getattr(indexer, part).update(parts.get(part, {}))
    for part in PER_WORD:
        mapping: dict[str, set[str]] = getattr(indexer, part)
        for word, pages in parts.get(part, {}).items():
            mapping.setdefault(word, set()).update(pages)


def shares(docnames: list[str], writers: int) -> list[list[str]]:
    """The pages in book order, in shares a writer process takes one at a time."""
    size = -(-len(docnames) // max(1, writers * SHARES_PER_WRITER))
    return [docnames[i : i + size] for i in range(0, len(docnames), size)]


class ResolvingHTMLBuilder(StandaloneHTMLBuilder):
    """``html``, its pages resolved and indexed by the processes that write them; in a
    process kept between builds, its search index and inventory written once the build
    has said it is done (see :mod:`.deferred`)."""

    kept_indexer: IndexBuilder | None = None  # a kept process's last search index

    def load_indexer(self, docnames: Any) -> None:
        """Sphinx's (the index read back from its file, less the pages written again); a
        kept process takes its last build's index instead, which it wrote (see
        :mod:`.deferred`): the same entries, without reading and parsing the file."""
        last = self.kept_indexer
        if deferring() and last is not None and self.indexer is not None:
            self.indexer = last
            last.prune(set(self.env.all_docs).difference(docnames))
        else:
            super().load_indexer(docnames)
        self.kept_indexer = self.indexer if deferring() else None

    def handle_finish(self) -> None:
        if not later(self._finish_late):
            super().handle_finish()

    def _finish_late(self) -> None:
        self.dump_search_index()
        self.dump_inventory()

    def _write_parallel(self, docnames: Any, nproc: int) -> None:
        names = list(docnames)
        first, rest = names[0], names[1:]  # in this process: warms the templates' caches
        write = builders._write_docname  # the guarded one (see .failures)
        write(first, env=self.env, builder=self, tags=self.tags)
        if not rest:
            return

        def write_share(share: list[str]) -> Written:
            self.images = {}
            _fresh_index(self.indexer)
            for docname in share:
                write(docname, env=self.env, builder=self, tags=self.tags)
            return self.images, _index_parts(self.indexer)

        def merge(share: list[str], written: Written) -> None:
            images, parts = written
            self.images.update(images)
            merge_index(self.indexer, parts)

        tasks = ParallelTasks(nproc)
        for share in shares(rest, nproc):
            tasks.add_task(write_share, share, merge)
        tasks.join()


def setup(app: Sphinx) -> None:
    app.add_builder(ResolvingHTMLBuilder, override=True)
