"""The epub stage's entry point: an epub per framework from the build's executed notebooks.

Each framework has a folder of its own, ``_build/epub_work/<framework>/``: Sphinx's sources
(``src``), its doctrees and the epub builder's output (``out``), so that a second build
rereads only what changed. The finished epub is copied atomically to ``_build/epub/``; a
framework whose notebooks or Sphinx run failed keeps its last good one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.config import Book
from polybook.config.schema import BuildSection, HtmlSection
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.environments import devices
from polybook.epub.places import epub_file, epub_work
from polybook.epub.shape import PER_FRAMEWORK, SITE_FOLDER
from polybook.fsutil import write_atomic
from polybook.library.model import SavedBlock
from polybook.render.names import BIBFILE, INDEX_FILE
from polybook.render.one_framework import framework_pages
from polybook.render.outputs import path_roots
from polybook.render.page import REFERENCES, references_page, with_toctree
from polybook.render.sources import write_sources
from polybook.render.sphinx.config import core_config, tool_digest
from polybook.render.sphinx.job import job_settings, job_warnings, run_job_sphinx
from polybook.render.sphinx.process import REPORTED_FAILURE

if TYPE_CHECKING:
    from polybook.execution.stage import Executed

EPUB_CODE = Path(__file__).resolve().parent
STATIC = EPUB_CODE / "static"
STALE = "the epub is not rebuilt: a notebook of this framework failed; the last good epub stays"


@dataclass(frozen=True)
class EpubJob:
    """Where one framework's epub is made."""

    book: Book
    framework: str
    # The book's libraries, which autodoc imports (see polybook.render.autodoc).
    libraries: Mapping[str, Sequence[SavedBlock]] = field(default_factory=dict, compare=False)

    @property
    def work(self) -> Path:
        return epub_work(self.book.layout, self.framework)

    @property
    def basename(self) -> str:
        return epub_file(self.book.layout, self.framework).stem


def identifier(book: Book, html: HtmlSection, framework: str) -> str:
    """The epub's identifier: where the site holds it when ``[html] base_url`` says where the
    site is, else a URN of the book, the framework and the release."""
    if html.base_url:
        return f"{html.base_url}{SITE_FOLDER}/{epub_file(book.layout, framework).name}"
    return f"urn:polybook:{book.project.name}:{framework}:{book.project.release or '0'}"


def epub_config(job: EpubJob, build: BuildSection, html: HtmlSection) -> dict[str, Any]:
    """Sphinx's settings for ``job``: the render core's and the epub's (its metadata, the
    book's styles for cells and outputs, math drawn as SVG as on the site)."""
    book = job.book
    settings = core_config(book, build, job.libraries, output=["polybook.epub.sphinx_epub"])
    display = book.framework(job.framework).display_name
    author = book.project.author or book.project.title
    release = book.project.release or "0"
    settings |= {
        "version": release,
        "epub_basename": job.basename,
        "epub_title": f"{book.project.title} ({display})",
        "epub_author": author,
        "epub_contributor": author,
        "epub_publisher": author,
        "epub_copyright": book.project.copyright or author,
        "epub_description": f"{book.project.title}, with its code and outputs in {display}",
        "epub_identifier": identifier(book, html, job.framework),
        "epub_scheme": "URL" if html.base_url else "URN",
        "epub_uid": "BookId",
        "epub_show_urls": "no",
        "epub_use_index": False,
        "epub_tocdepth": 3,
        "html_static_path": [str(STATIC)],
        "html_css_files": ["polybook-epub.css"],
        "html_math_renderer": "pb-svg",  # drawn at build time, as the site's (site.math_svg)
        "pb_math_cache": str(book.layout.math_cache),  # the site's drawings
        "pb_inert_cache": str(book.layout.inert_cache),
        "pb_tabbed": not PER_FRAMEWORK,  # one framework's pages: no tab bars
    }
    return settings


def write_job_sources(
    job: EpubJob,
    build: BuildSection,
    executed: Executed,
    reporter: Reporter,
) -> None:
    """The framework's pages, their cell data and outputs (cut at ``[build] output_limit``),
    the resources (``[build] resources``) and the book's BibTeX file."""
    pages = framework_pages(
        executed.library.parsed,
        executed.notebooks,
        job.framework,
        build.output_limit,
        reporter,
        path_roots(job.book),
        devices.host_gpus(),
    )
    if job.book.bibliography:  # the references after the last chapter, a page of their own
        pages = [
            with_toctree(p, [REFERENCES], hidden=False) if p.docname == "index" else p
            for p in pages
        ]
        pages.append(references_page())
    srcdir = job.work / "src"
    write_sources(job.book, build.resources, pages, srcdir)
    write_atomic(srcdir / INDEX_FILE, "{}")  # no API pages in the epub
    bib = job.book.bibliography
    if bib:
        write_atomic(srcdir / BIBFILE, bib.read_bytes())


def run_job(
    job: EpubJob, build: BuildSection, html: HtmlSection
) -> tuple[list[Diagnostic], Path | None]:
    """Sphinx's epub builder for one framework whose sources are written: its diagnostics,
    and the epub when it was written."""
    epub = epub_config(job, build, html)
    settings = job_settings(job.work, "epub", epub, tool_digest(EPUB_CODE))
    crash, fresh = run_job_sphinx(job.work, settings, "Sphinx failed to write the epub")
    found = job_warnings(job.work, settings, fresh, job.framework)
    built = job.work / "out" / f"{job.basename}.epub"
    if crash or not built.is_file():
        if crash != REPORTED_FAILURE:  # else its located error is among the warnings
            where = Location("sphinx", 0, job.framework)
            message = crash or f"no epub in {built.parent}"
            found.append(Diagnostic(where, message, "epub", "error"))
        return found, None
    target = epub_file(job.book.layout, job.framework)
    write_atomic(target, built.read_bytes())
    return found, target


def build_epub(
    executed: Executed,
    book: Book,
    build: BuildSection,
    html: HtmlSection,
    reporter: Reporter,
) -> list[Path]:
    """Build ``_build/epub/<name>-<framework>.epub`` for each framework of the build; returns
    those written. A framework whose notebooks failed keeps its last good epub. Reads
    ``[build]`` (Sphinx's core settings, resources), the book's bibliography and
    ``[html]`` (where the site is, the epub's identifier)."""
    jobs = []
    for fw in executed.library.tabs:
        broken = sorted(path for path, framework in executed.failed if framework == fw)
        if broken:
            reporter.warn(Location(broken[0], 0, fw), STALE, "epub.stale")
            continue
        job = EpubJob(book, fw, executed.library.blocks)
        write_job_sources(job, build, executed, reporter)
        jobs.append(job)
    workers = max(1, min(len(jobs), book.jobs))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda job: run_job(job, build, html), jobs))
    for diagnostics, _ in results:
        reporter.forward(diagnostics)
    return [epub for _, epub in results if epub is not None]
