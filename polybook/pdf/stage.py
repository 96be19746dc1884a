"""The PDF stage's entry point: a PDF per framework from the build's executed notebooks."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from nbformat import NotebookNode

from polybook.config import Book
from polybook.config.schema import BuildSection, PdfSection
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.environments import devices
from polybook.library.model import SavedBlock
from polybook.pdf.latex import INSTALL, LatexJob, missing_tools, run_job, write_job_sources
from polybook.pdf.pages import pdf_pages
from polybook.render.outputs import path_roots
from polybook.source.book import ParsedBook

if TYPE_CHECKING:
    from polybook.execution.stage import Executed

STALE = "the PDF is not rebuilt: a notebook of this framework failed; the last good PDF stays"


def build_pdf(
    executed: Executed, book: Book, build: BuildSection, pdf: PdfSection, reporter: Reporter
) -> list[Path]:
    """Build ``_build/pdf/<name>-<framework>.pdf`` for each framework of the build; returns
    those written. A framework whose notebooks failed or whose LaTeX fails keeps its last
    good PDF; the error is located in the Markdown."""
    return write_pdfs(
        book,
        build,
        pdf,
        executed.library.parsed,
        executed.library.tabs,
        executed.notebooks,
        reporter,
        executed.failed,
        executed.library.blocks,
    )


def write_pdfs(
    book: Book,
    build: BuildSection,
    pdf: PdfSection,
    source: ParsedBook,
    tabs: tuple[str, ...],
    executed: Mapping[tuple[str, str], NotebookNode],
    reporter: Reporter,
    failed: Collection[tuple[str, str]] = (),
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
) -> list[Path]:
    """The PDFs of ``tabs`` of the pages of ``source`` from ``executed`` ((page, framework)
    -> notebook); a framework with a notebook in ``failed`` ((page, framework) pairs) keeps
    its last good PDF."""
    missing = missing_tools()
    if missing:
        message = f"{', '.join(missing)} not found: {INSTALL}"
        reporter.error(Diagnostic(Location("pdf"), message, "pdf", "error"))
        return []
    roots = path_roots(book)
    gpus = devices.host_gpus()
    cited = book.bibliography is not None
    jobs = []
    for fw in tabs:
        broken = sorted(path for path, framework in failed if framework == fw)
        if broken:
            reporter.warn(Location(broken[0], 0, fw), STALE, "pdf.stale")
            continue
        pages = pdf_pages(source, executed, fw, build.output_limit, reporter, roots, gpus, cited)
        job = LatexJob(book, fw, libraries or {})
        write_job_sources(job, build.resources, pages)
        jobs.append(job)
    workers = max(1, min(len(jobs), book.jobs))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda job: run_job(job, build, pdf), jobs))
    for result in results:
        reporter.forward(result.diagnostics)
    return [result.pdf for result in results if result.pdf is not None]
