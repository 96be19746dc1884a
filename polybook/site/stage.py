"""The site stage's entry point: the executed notebooks -> ``_build/html``, through the render
core (pages as MyST) and a Sphinx process of its own.

A rebuild starts Sphinx (its imports, extensions and environment) while the pages are
prepared (:func:`start_early`), and lets it run once they are written if its settings are
still the last build's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.config import Book
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.environments import devices
from polybook.fsutil import file_stamp, write_atomic
from polybook.layout import DIST_LINK, NOTEBOOKS_LINK, Layout
from polybook.memo import digest
from polybook.notebooks.download import download_installs, has_code, with_install_cell
from polybook.notebooks.library_source import InstallSettings
from polybook.notebooks.variants import Repositories
from polybook.render import kept, warning_store
from polybook.render.assets import INSTALL, mathjax, write_mathjax
from polybook.render.outputs import path_roots
from polybook.render.page import Page, with_toctree
from polybook.render.plain import plain_book, site_address
from polybook.render.sources import keepable, write_sources
from polybook.render.sphinx.process import (
    REPORTED_FAILURE,
    EarlySphinx,
    ReadySphinx,
    WarmSphinx,
    run_sphinx,
)
from polybook.site.api import documented_modules
from polybook.site.api_prose import prose_index
from polybook.site.compat import write_compat
from polybook.site.extras import (
    Downloads,
    SiteExtras,
    generated_pages,
    write_held,
    write_index,
    write_notebooks,
    write_wheel,
)
from polybook.site.header import missing_targets
from polybook.site.links import check_links
from polybook.site.publish import publish_extras
from polybook.site.run_page import run_page
from polybook.site.sections import SiteSections
from polybook.site.settings import site_digest, site_settings

if TYPE_CHECKING:
    from nbformat import NotebookNode

    from polybook.execution.stage import Executed
    from polybook.source.book import ParsedBook

STALE = "page kept from the last good build: its inputs failed"
# The site's folders of extra files that only the build writes (and those of the outputs it
# holds): files gone from the extra files go from the site too.
OWNED = (NOTEBOOKS_LINK, DIST_LINK)


@dataclass(frozen=True)
class Site:
    """What the site stage made: the folder of the site."""

    folder: Path

    @property
    def index(self) -> Path:
        return self.folder / "index.html"


def build_site(
    executed: Executed,
    site: SiteSections,
    reporter: Reporter,
    early: EarlySphinx | None = None,
    pages_out: Callable[[], None] | None = None,
) -> Site:
    """Render every page and build the site; pages whose notebooks failed keep their last
    good HTML, and the library's wheel is published with it. ``early``: a Sphinx process
    started for it (see :func:`start_early`); ``pages_out``: told once Sphinx has written
    the pages where nothing failed so far (the checks that follow only warn).

    Outputs are cleaned first (JavaScript dropped, the machine's paths replaced): the pages
    and the notebooks offered for download show the same. What is cleaned and rendered is
    kept for the other outputs and the next build of this process (:mod:`polybook.render.kept`).
    """
    library = executed.library
    pages = []
    cleaned: dict[tuple[str, str], NotebookNode] = {}
    gpus = devices.host_gpus()
    book, limit = site.book, site.build.output_limit
    roots = path_roots(book)
    for doc in library.parsed.documents:
        nbs = {
            fw: kept.cleaned(
                book, limit, executed.notebooks[(doc.path, fw)], roots, doc.path, fw, reporter
            )
            for fw in library.tabs
            if (doc.path, fw) in executed.notebooks
        }
        cleaned.update(((doc.path, fw), nb) for fw, nb in nbs.items())
        pages.append(kept.rendered(doc, nbs, library.tabs, reporter, gpus, book.root))
    documented = documented_modules(library.parsed.documents)

    def downloads() -> Downloads:  # made while Sphinx writes the pages
        from polybook.library.wheel import current_wheel

        wheel = current_wheel(book, site.library, reporter)  # the library files it reads
        notebooks, images = plain_downloads(site, library.parsed, cleaned, reporter)
        return Downloads(notebooks, images, wheel)

    prose = prose_index(library.parsed.documents, library.tabs)
    held = frozenset(fw for _, fw in cleaned)
    coded = code_pages(cleaned)
    extras = SiteExtras(library.blocks, library.tabs, documented, prose, held, downloads, coded)
    stale = frozenset(page.removesuffix(".md") for page, _ in executed.failed)
    return Site(write_site(site, pages, reporter, stale, extras, early, pages_out))


def _stamps(root: Path, images: Sequence[str]) -> tuple[Any, ...]:
    """What a plain notebook read of its images (attached where the book has no site)."""
    return tuple((name, file_stamp(root / name)) for name in images)


def plain_downloads(
    site: SiteSections,
    parsed: ParsedBook,
    notebooks: Mapping[tuple[str, str], NotebookNode],
    reporter: Reporter | None = None,
) -> tuple[dict[tuple[str, str], NotebookNode], tuple[str, ...]]:
    """The notebooks offered for download, those with code, their prose plain Markdown
    (:mod:`polybook.render.plain`) and an install cell first (:mod:`polybook.notebooks.download`),
    and the book's images they link on the site; each made once per content, its images
    unchanged."""
    address = site_address(site.html.base_url, site.book.project.site_url)
    notebooks = {key: nb for key, nb in notebooks.items() if has_code(nb)}
    tabs = {fw for _, fw in notebooks}
    settings = InstallSettings(
        site.library, site.book.project, site.html, Repositories(site.colab, site.sagemaker)
    )
    needs = download_installs(site.book, settings, sorted(tabs))
    plain = {fw: plain_book(parsed, address, site.book.bibliography, fw) for fw in tabs}
    identity = {fw: plain[fw].identity() for fw in tabs}
    root = parsed.book.root
    made: dict[tuple[str, str], NotebookNode] = {}
    images: list[str] = []
    for (page, fw), nb in notebooks.items():
        install = needs.source(nb, fw)

        def make(
            _: Reporter, fw: str = fw, nb: NotebookNode = nb, page: str = page, cell: str = install
        ) -> Any:
            out, shown = plain[fw].notebook(nb, page)
            return with_install_cell(out, cell), shown, _stamps(root, shown)

        def fresh(last: tuple[NotebookNode, list[str], tuple[Any, ...]]) -> bool:
            return _stamps(root, last[1]) == last[2]

        key = digest("plain", identity[fw], page, nb, install)
        made[(page, fw)], shown, _ = kept.PLAIN.get(key, make, reporter or Reporter(), fresh)
        images += shown
    return made, tuple(dict.fromkeys(images))


def code_pages(notebooks: Mapping[tuple[str, str], NotebookNode]) -> dict[str, list[str]]:
    """Per framework, the pages (docnames) whose notebook has code: those offered as
    notebooks."""
    found: dict[str, list[str]] = {}
    for (page, fw), nb in notebooks.items():
        if has_code(nb):
            found.setdefault(fw, []).append(page.removesuffix(".md"))
    return {fw: sorted(pages) for fw, pages in sorted(found.items())}


def plan_run(
    previous: dict[str, Any] | None, settings: dict[str, Any], sources_changed: bool
) -> tuple[bool, bool]:
    """(whether Sphinx runs, whether it rereads every page) given the last run's settings.

    Sphinx does not know when its extension changes: a new tool digest rereads all pages.
    """
    fresh = previous is None or previous.get("tool") != settings["tool"]
    same = previous == json.loads(json.dumps(settings))  # as it reads back from the file
    return sources_changed or not same, fresh


def _load(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def start_early(layout: Layout) -> EarlySphinx | None:
    """A Sphinx process for :func:`build_site`, started while the pages are prepared: on the
    last build's settings, else (no such build: a cold one) one that imports Sphinx and
    waits for its settings. The caller stops it when the build ends otherwise."""
    if not (layout.html / "index.html").is_file() or not layout.site_warnings.is_file():
        return ReadySphinx()  # a fresh run comes
    return WarmSphinx.start(layout.sphinx_file("html", ".json"), site_digest())


class SphinxKeeper:
    """The site's Sphinx process, kept warm between the builds of one ``polybook serve``:
    after each build, the process that ran (or a new one, on the settings it left) waits for
    the next."""

    def __init__(self) -> None:
        self.process: EarlySphinx | None = None
        # What serve does once a build's pages are written and nothing failed so far.
        self.pages_out: Callable[[], None] | None = None

    def take(self, layout: Layout) -> EarlySphinx | None:
        """The kept process, else one started now on the last build's settings."""
        process, self.process = self.process, None
        if process is not None and process.alive:
            return process
        return start_early(layout)

    def keep(self, layout: Layout, used: EarlySphinx | None) -> None:
        """After a build: keep ``used`` where it still holds the settings the build left,
        else start one that does."""
        last = _load(layout.sphinx_file("html", ".json"))
        if used is not None and used.alive and used.settings == last:
            self.process = used
            if isinstance(used, WarmSphinx):
                used.write_late()  # the build's done: what it deferred, written meanwhile
            return
        if used is not None:
            used.stop()
        self.process = start_early(layout)

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None


def _write_assets(book: Book, extras: SiteExtras, srcdir: Path, reporter: Reporter) -> bool:
    """MathJax and the API index, which Sphinx reads; True if anything changed."""
    changed = False
    if mathjax().is_dir():
        changed |= write_mathjax(srcdir / "_static")
    else:
        reporter.warn(Location(str(mathjax())), f"MathJax {INSTALL}", "render")
    return changed | write_index(book, extras, srcdir)


def _write_downloads(
    book: Book,
    extras: SiteExtras,
    keep: Collection[str],
    publish: tuple[Path, Sequence[str]] | None = None,
) -> None:
    """The notebooks for download and the library's wheel, among the site's extra files;
    with ``publish`` (the site's folder and the extra folders it owns), copied into it."""
    made = extras.downloads()
    images = {name: book.root / name for name in made.images}
    write_notebooks(book.layout.site_extra / NOTEBOOKS_LINK, made.notebooks, keep, images)
    write_wheel(book.layout, made.wheel)
    if publish is not None:
        publish_extras(book.layout.site_extra, *publish)


def write_site(
    site: SiteSections,
    pages: Sequence[Page],
    reporter: Reporter,
    stale: Collection[str] = frozenset(),
    extras: SiteExtras | None = None,
    early: EarlySphinx | None = None,
    pages_out: Callable[[], None] | None = None,
) -> Path:
    """Build the HTML site from rendered ``pages`` (in a Sphinx process of its own); returns
    the output folder.

    ``stale`` names pages (docnames) whose inputs failed in this build: where an earlier
    build wrote them, their sources are kept, and so is their last good HTML. ``extras``
    adds the notebooks for download and the library's API pages. ``early`` is a Sphinx
    process started before the pages were ready (see :func:`start_early`): it runs when
    the settings are the ones it started on, and is stopped otherwise. ``pages_out`` is
    told once the pages are written, where no error was found so far: the notebooks for
    download are published after it, then the internal links checked (they can only warn).
    """
    book = site.book
    layout = book.layout
    extras = extras or SiteExtras()
    frameworks = tuple(fw for fw in book.tabs if fw in extras.held)  # notebooks offered
    generated = generated_pages(
        book, extras, {p.docname for p in pages}, run_page(site, frameworks)
    )
    names = [p.docname for p in generated]
    pages = [with_toctree(p, names) if p.docname == "index" else p for p in pages]
    # The books and decks built before the site, copied before the settings, which link them.
    copies_changed = write_held(book, site.linked) | write_compat(book, layout.site_src)
    settings = site_settings(site, list(frameworks), names, extras.libraries, extras.coded)
    srcdir, outdir = Path(settings["srcdir"]), Path(settings["outdir"])
    keep = keepable(srcdir, stale)
    for name in sorted(keep):
        reporter.warn(Location(name + ".md"), STALE, "render.stale")
    changed = write_sources(book, site.build.resources, [*pages, *generated], srcdir, keep)
    changed |= _write_assets(book, extras, srcdir, reporter) | copies_changed
    settings_file = layout.sphinx_file("html", ".json")
    store_file = layout.site_warnings
    store = warning_store.load(store_file)
    run, fresh = plan_run(_load(settings_file), settings, changed)

    publish = (outdir, (*OWNED, *(o.site.folder for o in site.linked if o.site is not None)))
    if not run and store is not None and (outdir / "index.html").is_file():
        _write_downloads(book, extras, keep, publish)
        warning_store.report(store, reporter)  # the warnings of the site as it is
        _check_links(site, outdir, reporter)
        return outdir
    fresh = fresh or store is None  # without the other pages' warnings: read them all
    write_atomic(settings_file, json.dumps(settings, indent=1))
    store_file.unlink(missing_ok=True)  # stands for the site again once this run is in
    # With no open page to tell first, the downloads are published as Sphinx writes.
    published = publish if pages_out is None else None

    def downloads() -> None:
        _write_downloads(book, extras, keep, published)

    if isinstance(early, WarmSphinx) and early.matches(settings, fresh):
        crash = early.run(downloads)
    elif isinstance(early, ReadySphinx):
        crash = early.run(settings_file, settings, fresh, downloads)
    else:
        crash = run_sphinx(settings_file, settings, fresh, downloads)
    sphinx_run = warning_store.read_run(Path(settings["diagnostics"]))
    store = warning_store.merge(store or {}, sphinx_run, fresh)
    warning_store.save(store_file, store)
    warning_store.report(store, reporter)
    if not crash and pages_out is not None and not reporter.errors:
        pages_out()  # the pages are out; their downloads follow, before the links' check
    if published is None:
        publish_extras(layout.site_extra, *publish)
    if crash:
        settings_file.unlink(missing_ok=True)  # the next build runs Sphinx again, afresh
        if crash != REPORTED_FAILURE:  # else the diagnostics have it, located
            reporter.error(Diagnostic(Location("sphinx"), crash, "render", "error"))
    else:
        _check_links(site, outdir, reporter)
    return outdir


def _check_links(site: SiteSections, outdir: Path, reporter: Reporter) -> None:
    """The written site's internal links, and the header links' targets, checked."""
    reporter.forward(_dead_links(site.book, reporter))
    reporter.forward(missing_targets(site.html, outdir, site.book.root))


def _dead_links(book: Book, reporter: Reporter) -> list[Diagnostic]:
    """The site's internal links that lead nowhere, located in the pages that write them;
    not those that a warning of Sphinx's about the page names already (a reference MyST
    could not resolve)."""
    layout = book.layout
    said: dict[str, list[str]] = {}
    for diag in reporter.diagnostics:
        said.setdefault(diag.location.path, []).append(diag.message)
    found = []
    for dead in check_links(book.root, layout.html, layout.site_src, layout.site_links):
        messages = said.get(dead.location.path, [])
        if not any(f"'{name}'" in message for name in dead.names for message in messages):
            found.append(dead.diagnostic)
    return found
