"""What the site holds beside the book's pages: the executed notebooks for download, the
library's API pages, the references page and the links to the notebooks' platforms."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import Book
from polybook.config.schema import ColabSection, PdfSection, SagemakerSection, for_framework
from polybook.fsutil import file_stamp, write_atomic
from polybook.layout import DIST_LINK, EPUBS_LINK, NOTEBOOKS_LINK, PDFS_LINK, SLIDES_LINK, Layout
from polybook.library.model import SavedBlock
from polybook.library.wheel import publish_wheel
from polybook.nb import writes
from polybook.render.names import BIBFILE, INDEX_FILE
from polybook.render.page import Page, references_page
from polybook.render.sphinx.config import bibfile
from polybook.site.api import api_index, api_pages
from polybook.site.api_prose import ProseIndex
from polybook.site.compat import compat_pages

REFERENCES = "references"
STATIC_FOLDER = "_static"  # the decks' shared assets, beside their framework folders
COLAB = "https://colab.research.google.com/github"
SAGEMAKER = "https://studiolab.sagemaker.aws/import/github"
# Kaggle opens a notebook from its address on GitHub: the Colab notebooks, which install
# what they need.
KAGGLE = "https://kaggle.com/kernels/welcome?src=https://github.com"
BOOK_KINDS = ("pdf", "epub")  # the books built per framework that the site links


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
    return any((book.layout.notebooks / fw / folder).rglob("*.ipynb"))


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
    books = {kind: site_books(book, kind) for kind in BOOK_KINDS}
    return {
        "notebooks": {fw: f"{NOTEBOOKS_LINK}/{fw}/" if fw in notebooks else "" for fw in tabs},
        **{kind: {fw: held.get(fw, "") for fw in tabs} for kind, held in books.items()},
        "slides": {fw: f"{SLIDES_LINK}/{fw}/" if fw in site_decks(book) else "" for fw in tabs},
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
    pdf: PdfSection,
    extras: SiteExtras,
    taken: Collection[str],
    first: Sequence[Page] = (),
) -> list[Page]:
    """``first``, the API pages and the references page (with ``pdf``'s BibTeX file),
    leaving out docnames the book uses."""
    pages = [*first]
    pages += api_pages(book, extras.libraries, extras.tabs, extras.documented, extras.prose)
    if bibfile(pdf):
        pages.append(references_page())
    pages += compat_pages(book)
    return [p for p in pages if p.docname not in taken]


def write_index(book: Book, pdf: PdfSection, extras: SiteExtras, srcdir: Path) -> bool:
    """The API index and ``pdf``'s BibTeX file in the site's sources; True if either
    changed."""
    index = api_index(book, extras.libraries, extras.tabs, extras.documented)
    changed = write_atomic(srcdir / INDEX_FILE, json.dumps(index, indent=1, sort_keys=True))
    bib = bibfile(pdf)
    if bib:
        changed |= write_atomic(srcdir / BIBFILE, bib.read_bytes())
    else:
        (srcdir / BIBFILE).unlink(missing_ok=True)
    return changed


# The notebook object each file was last written from in this process (a page's plain
# notebook is the same object while it is unchanged: see polybook.memo), and the file's stamp.
_WRITTEN: dict[Path, tuple[NotebookNode, tuple[int, int] | None]] = {}


def _still_written(target: Path, nb: NotebookNode) -> bool:
    """Whether ``target`` holds ``nb`` as this process wrote it (not made or touched since)."""
    last = _WRITTEN.get(target)
    if last is None or last[0] is not nb or last[1] is None:
        return False
    return file_stamp(target) == last[1]


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
        if path.removesuffix(".md") not in keep and not _still_written(target, nb):
            changed |= write_atomic(target, writes(nb))
            _WRITTEN[target] = (nb, file_stamp(target))
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


def _books(book: Book, kind: str) -> tuple[str, dict[str, Path]]:
    """The site's folder for the books of ``kind`` ("pdf", "epub"), and those built, by
    framework."""
    layout = book.layout
    if kind == "pdf":
        return PDFS_LINK, layout.built_pdfs(book.tabs)
    return EPUBS_LINK, layout.built_epubs(book.tabs)


def site_books(book: Book, kind: str) -> dict[str, str]:
    """The frameworks whose book of ``kind`` the site holds (copied by
    :func:`write_books`), with its path in the site."""
    link, _ = _books(book, kind)
    folder = book.layout.site_extra / link
    layout = book.layout
    names = {fw: layout.pdf_name(fw) if kind == "pdf" else layout.epub_name(fw) for fw in book.tabs}
    return {fw: f"{link}/{name}" for fw, name in names.items() if (folder / name).is_file()}


def write_books(book: Book) -> bool:
    """Copy the built PDFs and epubs (``_build/pdf``, ``_build/epub``) into the site's extra
    files, removing those no longer built; True if anything changed."""
    changed = False
    for kind in BOOK_KINDS:
        link, built = _books(book, kind)
        folder = book.layout.site_extra / link
        wanted = {path.name: path for path in built.values()}
        for name, path in wanted.items():
            changed |= write_atomic(folder / name, path.read_bytes())
        for old in folder.glob(f"*.{kind}") if folder.is_dir() else ():
            if old.name not in wanted:
                old.unlink()
                changed = True
    return changed


def site_decks(book: Book) -> dict[str, list[str]]:
    """Per framework, the pages whose reveal.js deck the site holds (see :func:`write_slides`)."""
    folder = book.layout.site_extra / SLIDES_LINK
    found = {}
    for fw in book.tabs:
        decks = folder / fw
        pages = decks.rglob("*.html") if decks.is_dir() else ()
        found[fw] = sorted(p.relative_to(decks).with_suffix("").as_posix() for p in pages)
    return {fw: pages for fw, pages in found.items() if pages}


def write_slides(book: Book) -> bool:
    """Copy the built reveal.js decks (``_build/slides``) and their assets into the site's
    extra files, removing those no longer built; True if anything changed."""
    layout = book.layout
    source, folder = layout.slides, layout.site_extra / SLIDES_LINK
    wanted = {}
    for fw, pages in layout.built_decks(book.tabs).items():
        for page in pages:
            wanted[f"{fw}/{page}.html"] = layout.deck(fw, page, ".html")
    static = source / STATIC_FOLDER
    if wanted and static.is_dir():
        wanted |= {p.relative_to(source).as_posix(): p for p in static.rglob("*") if p.is_file()}
    changed = False
    for name, path in wanted.items():
        changed |= write_atomic(folder / name, path.read_bytes())
    for old in sorted(folder.rglob("*"), reverse=True) if folder.is_dir() else ():
        if old.is_file() and old.relative_to(folder).as_posix() not in wanted:
            old.unlink()
            changed = True
        elif old.is_dir() and not any(old.iterdir()):
            old.rmdir()
    return changed


def write_wheel(layout: Layout, wheel: Path | None) -> bool:
    """The library's wheel at ``_dist/<wheel>`` in the site, where the students' notebooks
    install it from (``[html] base_url``); True if anything changed."""
    return publish_wheel(layout.site_extra / DIST_LINK, wheel)
