"""What the site holds beside the book's pages: the executed notebooks for download, the
library's API pages, the references page and the links to the notebooks' platforms."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from polybook.config import Book
from polybook.config.schema import ColabSection, SagemakerSection, for_framework
from polybook.diagnostics import Reporter
from polybook.fsutil import file_stamp, sync_files, write_atomic
from polybook.layout import DIST_LINK, NOTEBOOKS_LINK, Layout
from polybook.library.model import SavedBlock
from polybook.library.wheel import publish_wheel
from polybook.memo import Memo
from polybook.nb import writes
from polybook.notebooks.places import notebooks_dir
from polybook.output import Output
from polybook.render.names import BIBFILE, INDEX_FILE
from polybook.render.page import Page, references_page
from polybook.site.api import api_index, api_pages
from polybook.site.api_prose import ProseIndex
from polybook.site.compat import compat_pages

REFERENCES = "references"
COLAB = "https://colab.research.google.com/github"
SAGEMAKER = "https://studiolab.sagemaker.aws/import/github"
# Kaggle opens a notebook from its address on GitHub: the Colab notebooks, which install
# what they need.
KAGGLE = "https://kaggle.com/kernels/welcome?src=https://github.com"


@dataclass(frozen=True)
class Downloads:
    """What the site offers for download beside its pages: the notebooks ((page path,
    framework) -> notebook), the book's images they link, and the library's wheel."""

    notebooks: Mapping[tuple[str, str], NotebookNode] = field(default_factory=dict)
    images: tuple[str, ...] = ()
    wheel: Path | None = None


@dataclass(frozen=True)
class SiteExtras:
    """The build's libraries, the library modules the book's pages document themselves
    (module -> page), the frameworks whose notebooks the site offers (``held``), how
    the downloads are made (``downloads``: while Sphinx writes the pages) and which pages
    have code of each framework (``coded``; None: not known)."""

    libraries: Mapping[str, Sequence[SavedBlock]] = field(default_factory=dict)
    tabs: tuple[str, ...] = ()
    documented: Mapping[str, str] = field(default_factory=dict)  # modules the book documents
    prose: ProseIndex = field(default_factory=dict)  # describes names without a docstring
    held: frozenset[str] = frozenset()
    downloads: Callable[[], Downloads] = Downloads
    coded: Mapping[str, Sequence[str]] | None = None  # per framework, its pages with code


def _platform(base: str, repos: tuple[str, ...], branch: str, folder: str, fw: str) -> str:
    """Where a framework's notebooks open on a platform: the URL before ``<page>.ipynb``."""
    repo = for_framework(repos, fw) if repos else ""
    if not repo:
        return ""
    inside = f"{fw}/{folder}/" if len(repos) == 1 else ""  # one repository: _build/notebooks/
    return f"{base}/{repo}/blob/{branch}/{inside}"


def published(book: Book, repos: tuple[str, ...], folder: str, fw: str) -> bool:
    """Whether the platform's notebooks of ``fw`` are there to open: a repository of the
    author's own publishes them; the book's (``[project] repository``) holds what this
    build wrote, ``_build/notebooks/<fw>/<folder>/``."""
    if repos != (book.project.repository,):
        return True
    return any((notebooks_dir(book.layout) / fw / folder).rglob("*.ipynb"))


def links(
    book: Book,
    colab: ColabSection,
    sagemaker: SagemakerSection,
    tabs: Sequence[str],
    notebooks: Collection[str],
) -> dict[str, dict[str, str]]:
    """Per kind of link, per framework, what comes before ``<page>.ipynb`` (relative to the
    site's root for the notebooks it holds, of ``notebooks``' frameworks); "" for none."""
    on_colab = (COLAB, colab.github_repo, colab.branch, "colab")
    on_sagemaker = (SAGEMAKER, sagemaker.github_repo, sagemaker.branch, "sagemaker")
    on_kaggle = (KAGGLE, colab.github_repo, colab.branch, "colab")
    return {
        "notebooks": {fw: f"{NOTEBOOKS_LINK}/{fw}/" if fw in notebooks else "" for fw in tabs},
        **{
            kind: {
                fw: _platform(*on, fw) if published(book, on[1], on[3], fw) else "" for fw in tabs
            }
            for kind, on in (
                ("colab", on_colab),
                ("sagemaker", on_sagemaker),
                ("kaggle", on_kaggle),
            )
        },
    }


def generated_pages(
    book: Book,
    extras: SiteExtras,
    taken: Collection[str],
    first: Sequence[Page] = (),
) -> list[Page]:
    """``first``, the API pages and the references page (with the book's bibliography),
    leaving out docnames the book uses."""
    pages = [*first]
    pages += api_pages(book, extras.libraries, extras.tabs, extras.documented, extras.prose)
    if book.bibliography:
        pages.append(references_page())
    pages += compat_pages(book)
    return [p for p in pages if p.docname not in taken]


def write_index(book: Book, extras: SiteExtras, srcdir: Path) -> bool:
    """The API index and the book's BibTeX file in the site's sources; True if either
    changed."""
    index = api_index(book, extras.libraries, extras.tabs, extras.documented)
    changed = write_atomic(srcdir / INDEX_FILE, json.dumps(index, indent=1, sort_keys=True))
    bib = book.bibliography
    if bib:
        changed |= write_atomic(srcdir / BIBFILE, bib.read_bytes())
    else:
        (srcdir / BIBFILE).unlink(missing_ok=True)
    return changed


# The notebook object each file was last written from in this process (a page's plain
# notebook is the same object while it is unchanged: see polybook.memo), and the file's stamp.
Stamp = tuple[int, int] | None
_WRITTEN: Memo[tuple[NotebookNode, Stamp]] = Memo(8192)


def _write_notebook(target: Path, nb: NotebookNode) -> bool:
    """Write ``nb`` at ``target`` unless this process wrote this very notebook there and the
    file is as it left it; whether the file changed."""
    wrote = False

    def write(_: Reporter) -> tuple[NotebookNode, Stamp]:
        nonlocal wrote
        wrote = write_atomic(target, writes(nb))
        return nb, file_stamp(target)

    def same(kept: tuple[NotebookNode, Stamp]) -> bool:
        return kept[0] is nb and kept[1] is not None and kept[1] == file_stamp(target)

    _WRITTEN.get(str(target), write, Reporter(quiet=True), same)
    return wrote


def write_notebooks(
    folder: Path,
    notebooks: Mapping[tuple[str, str], NotebookNode],
    keep: Collection[str],
    images: Mapping[str, Path] | None = None,
) -> bool:
    """``folder/<framework>/<page>.ipynb`` for each notebook; those of pages in ``keep``
    (docnames) stay as they were, and notebooks of pages no longer built go. ``images``
    (path from the book's root -> file): the images the notebooks link, at that path."""
    changed = False
    wanted: set[Path] = set()
    for (path, fw), nb in notebooks.items():
        target = folder / fw / (path.removesuffix(".md") + ".ipynb")
        wanted.add(target)
        if path.removesuffix(".md") not in keep:
            changed |= _write_notebook(target, nb)
    for name, source in (images or {}).items():
        wanted.add(folder / name)
        changed |= write_atomic(folder / name, source.read_bytes())
    for old in folder.rglob("*") if folder.is_dir() else ():
        if not old.is_file() or old in wanted:
            continue
        docname = old.relative_to(folder).with_suffix("").as_posix().split("/", 1)[-1]
        if old.suffix != ".ipynb" or docname not in keep:
            old.unlink()
            changed = True
    return changed


def write_held(book: Book, outputs: Sequence[Output]) -> bool:
    """Copy the files of ``outputs`` built before the site (``SiteLink``) into its extra
    files, each output's in its folder, removing those no longer built; True if anything
    changed."""
    changed = 0
    for output in outputs:
        if output.site is not None:
            held = output.held(book.layout, book.tabs)
            changed += sync_files(held, book.layout.site_extra / output.site.folder)
    return changed > 0


def held_links(book: Book, outputs: Sequence[Output]) -> list[dict[str, Any]]:
    """Per output the site holds (:func:`write_held`), what its links say and, per
    framework, per page ("": every page), the path in the site of the file it links."""
    found = []
    for output in outputs:
        site = output.site
        if site is None:
            continue
        folder = book.layout.site_extra / site.folder
        own = book.layout.output_dir(output.name)
        files = {
            fw: {
                page: f"{site.folder}/{path.relative_to(own).as_posix()}"
                for page, path in pages.items()
                if (folder / path.relative_to(own)).is_file()
            }
            for fw, pages in site.built(book.layout, book.tabs).items()
        }
        files = {fw: pages for fw, pages in files.items() if pages}
        link = {"name": output.name, "message": site.message, "label": site.label}
        found.append({**link, "files": files})
    return found


def write_wheel(layout: Layout, wheel: Path | None) -> bool:
    """The library's wheel at ``_dist/<wheel>`` in the site, where the students' notebooks
    install it from (``[html] base_url``); True if anything changed."""
    return publish_wheel(layout.site_extra / DIST_LINK, wheel)
