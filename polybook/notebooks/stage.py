"""Notebooks stage: the executed notebooks -> what students run, per framework.

``_build/notebooks/<framework>/<page>.ipynb`` for Jupyter, and a ``colab/`` and a
``sagemaker/`` variant of each (see :mod:`polybook.notebooks.variants`), with the book's
resources beside each set so relative links resolve, and ``<book>-<framework>.zip`` of the
Jupyter set. Nothing is executed here: the notebooks are the build's.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nbformat import NotebookNode

from polybook.config import Book
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.execution.resources import resource_files
from polybook.fsutil import write_atomic
from polybook.layout import DIST_LINK, Layout
from polybook.library.package_spec import PackageSpec, package_spec
from polybook.library.wheel import current_wheel, publish_wheel
from polybook.meta import notebook_meta
from polybook.nb import writes
from polybook.notebooks.compat_line import compat_line, read_results
from polybook.notebooks.install import Installs, imported_modules, installs
from polybook.notebooks.library_source import (
    REPOSITORY,
    InstallSettings,
    install_problems,
    library_source,
)
from polybook.notebooks.places import notebooks_dir
from polybook.notebooks.sections import NotebookSections
from polybook.notebooks.student import PageInfo, needs_gpu, page_title, student_notebook
from polybook.notebooks.variants import REGISTRY, Repositories
from polybook.notebooks.writer import zip_folder
from polybook.render.plain import Plain, plain_book, site_address
from polybook.render.plain_files import last_good, remove_stale, write_files
from polybook.source.book import ParsedBook
from polybook.source.readable import Readable

if TYPE_CHECKING:
    from polybook.execution.stage import Executed

logger = logging.getLogger("polybook")


@dataclass
class NotebooksReport:
    """What the stage wrote."""

    folder: Path
    notebooks: int = 0
    changed: int = 0
    removed: int = 0
    zips: list[Path] = field(default_factory=list)


def site_url(site: str, page: str, framework: str) -> str:
    """The page on the published site (``site``, see
    :func:`polybook.render.plain.site_address`), its tabs set to ``framework`` ("" if
    unpublished)."""
    if not site:
        return ""
    return f"{site}{page.removesuffix('.md')}.html?tab={framework}"


def colab_url(repos: Repositories, page: str, framework: str) -> str:
    """“Open in Colab” for the page's Colab notebook, from ``[colab] github_repo``."""
    return REGISTRY["colab"].url(repos, page, framework)


def _page_info(
    info: Book,
    site: str,
    repos: Repositories,
    page: str,
    framework: str,
    nb: NotebookNode,
    needs: Installs,
    results: list[dict[str, Any]],
) -> PageInfo:
    requirements = needs.requirements(framework, imported_modules(nb), needs_gpu(nb))
    return PageInfo(
        page=page,
        title=page_title(nb, page.removesuffix(".md")),
        framework_name=info.framework(framework).display_name,
        book_title=info.project.title,
        site_link=site_url(site, page, framework),
        links=tuple(
            (v.name, v.platform, url)
            for v in REGISTRY.values()
            if (url := v.url(repos, page, framework))
        ),
        requirements=tuple(requirements),
        page_libraries=notebook_meta(nb).required_libs,
        compat=compat_line(results, page, framework, info.project.site_url),
    )


def check_install(
    settings: InstallSettings, spec: PackageSpec, tabs: tuple[str, ...], reporter: Reporter
) -> None:
    """Report what keeps the first cells from installing this book's library."""
    modules = {
        spec.modules[fw]: (spec.source / spec.modules[fw]).read_text(encoding="utf-8")
        for fw in tabs
    }
    for problem in install_problems(settings, spec.name, modules, tabs):
        where = Location("config.ini")
        if problem.level == "error":
            reporter.error(Diagnostic(where, problem.text, "notebooks.install", "error"))
        elif problem.level == "warning":
            reporter.warn(where, problem.text, "notebooks.install")
        else:
            logger.info("%s", problem.text)


def _publish(layout: Layout, wheel: Path | None) -> None:
    """The wheel where the site holds it, for the next build of the site and in the site
    already built (its notebooks install it from there)."""
    publish_wheel(layout.site_extra / DIST_LINK, wheel)
    if (layout.html / "index.html").is_file():
        publish_wheel(layout.html / DIST_LINK, wheel)


def build_notebooks(
    executed: Executed, book: Book, sections: NotebookSections, reporter: Reporter
) -> NotebooksReport:
    """The students' notebooks of every framework of the build."""
    library = executed.library
    tabs = library.tabs
    return write_notebooks(
        book, sections, executed.notebooks, tabs, reporter, executed.failed, library.parsed
    )


def write_notebooks(
    book: Book,
    sections: NotebookSections,
    executed: Mapping[tuple[str, str], NotebookNode],
    tabs: tuple[str, ...],
    reporter: Reporter,
    failed: Collection[tuple[str, str]] = (),
    parsed: ParsedBook | None = None,
) -> NotebooksReport:
    """Write the student notebooks of ``executed`` ((page, framework) -> notebook); a
    notebook in ``failed`` keeps its last good version. ``parsed``: the pages whose
    references the notebooks read as text (none resolve without it)."""
    settings = sections.install
    project, library, repos = settings.project, settings.library, settings.repos
    report = NotebooksReport(notebooks_dir(book.layout))
    if not project.release and "{release}" in library.install:
        message = "[project] release is empty: the notebooks install the library unpinned"
        reporter.warn(Location("config.ini"), message, "notebooks.release")
    spec = package_spec(book, tabs)
    check_install(settings, spec, tabs, reporter)
    wheel = current_wheel(book, library, reporter)
    _publish(book.layout, wheel)
    found = resource_files(book, sections.resources)
    resources = {k: p.read_bytes() for k, p in found.items()}
    site = site_address(settings.html.base_url, project.site_url)
    results = read_results(book.layout.compat / "compat.json")
    for fw in tabs:
        base = report.folder / fw
        keep: set[Path] = set()
        pages = {page: nb for (page, f), nb in executed.items() if f == fw}
        prose = (
            plain_book(parsed, site, book.bibliography, fw)
            if parsed is not None
            else Plain(Readable({}), book.root, site)
        )
        for variant in REGISTRY.values():
            folder = base / variant.folder if variant.folder else base
            kernelspec = variant.kernelspec(book, repos, fw)
            source = library_source(settings, spec.name, variant, fw)
            needs = installs(spec, source.requirement)
            files = dict(resources)
            if wheel is not None and source.origin == REPOSITORY and variant.holds_wheel(repos, fw):
                files[f"{DIST_LINK}/{wheel.name}"] = wheel.read_bytes()  # the cell's URL
            count = len(files)
            for page, nb in pages.items():
                name = page.removesuffix(".md") + ".ipynb"
                if (page, fw) in failed:
                    keep |= last_good(folder, [name])
                    continue
                page_info = _page_info(book, site, repos, page, fw, nb, needs, results)
                student = student_notebook(nb, variant, page_info, kernelspec, prose)
                files[name] = writes(student).encode()
            written, changed = write_files(folder, files)
            keep |= written
            report.notebooks += len(files) - count
            report.changed += changed
        report.removed += remove_stale(base, keep)
        plain = [p for p in keep if p.is_file() and _in_plain(p, base)]
        target = report.folder / f"{project.name}-{fw}.zip"
        write_atomic(target, zip_folder(f"{project.name}-{fw}", base, plain))
        report.zips.append(target)
    return report


def _in_plain(path: Path, base: Path) -> bool:
    """Whether ``path`` belongs to the Jupyter set (not a platform's folder)."""
    first = path.relative_to(base).parts[0]
    return first not in {v.folder for v in REGISTRY.values() if v.folder}
