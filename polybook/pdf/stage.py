"""The PDF stage's entry point: a PDF per framework from the build's executed notebooks."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.execution import envs
from polybook.pdf.latex import INSTALL, LatexJob, missing_tools, run_job, write_job_sources
from polybook.pdf.render import pdf_pages
from polybook.saved import SavedBlock
from polybook.site.extras import bibfile
from polybook.site.outputs import path_roots
from polybook.source.book import Book

STALE = "the PDF is not rebuilt: a notebook of this framework failed; the last good PDF stays"


def _report(diagnostics: list[Diagnostic], reporter: Reporter) -> None:
    for diag in diagnostics:
        if diag.severity == "error":
            reporter.error(diag)
        else:
            reporter.warn(diag.location, diag.message, diag.subtype)


def build_pdf(
    config: BookConfig,
    book: Book,
    tabs: tuple[str, ...],
    executed: Mapping[tuple[str, str], NotebookNode],
    reporter: Reporter,
    failed: Collection[tuple[str, str]] = (),
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
) -> list[Path]:
    """Build ``_build/pdf/<name>-<framework>.pdf`` for each of ``tabs``; returns those
    written. A framework whose notebooks ``failed`` ((page, framework) pairs) or whose
    LaTeX fails keeps its last good PDF; the error is located in the Markdown."""
    missing = missing_tools()
    if missing:
        message = f"{', '.join(missing)} not found: {INSTALL}"
        reporter.error(Diagnostic(Location("pdf"), message, "pdf", "error"))
        return []
    roots = path_roots(config)
    gpus = envs.host_gpus()
    cited = bibfile(config) is not None
    jobs = []
    for fw in tabs:
        broken = sorted(path for path, framework in failed if framework == fw)
        if broken:
            reporter.warn(Location(broken[0], 0, fw), STALE, "pdf.stale")
            continue
        pages = pdf_pages(book, executed, fw, reporter, roots, gpus, cited)
        job = LatexJob(config, fw, libraries or {})
        write_job_sources(config, job, pages)
        jobs.append(job)
    workers = max(1, min(len(jobs), config.effective_jobs))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda job: run_job(config, job), jobs))
    for result in results:
        _report(result.diagnostics, reporter)
    return [result.pdf for result in results if result.pdf is not None]
