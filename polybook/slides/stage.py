"""The slides stage's entry point: the executed notebooks -> one deck per section per
framework, ``_build/slides/<framework>/<page>.ipynb`` (RISE: what d2lbook's readers open)
and ``.html`` (reveal.js, self-contained but for the assets in ``_build/slides/_static``).

A section without slide marks gets no deck. A page whose notebook failed keeps its last good
decks; files of decks no longer made are removed. Nothing is executed here.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from polybook.config import Book, key_location
from polybook.config.schema import HtmlSection, SlidesSection, for_framework
from polybook.diagnostics import Location, Reporter
from polybook.fsutil import write_atomic
from polybook.nb import writes
from polybook.render import kept
from polybook.render.assets import INSTALL, mathjax, reveal, write_mathjax, write_reveal
from polybook.render.outputs import path_roots
from polybook.render.plain import Plain, image_sources, plain_book, site_address
from polybook.render.plain_files import last_good, remove_stale
from polybook.slides.deck import Deck
from polybook.slides.places import slides_dir
from polybook.slides.reveal import STATIC, reveal_html, slides_css
from polybook.slides.rise import RISE_CSS, rise_notebook
from polybook.slides.section import page_deck

if TYPE_CHECKING:
    from polybook.execution.stage import Executed

NBVIEWER = "https://nbviewer.jupyter.org/format/slides/github"
REMOTE = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.I)


@dataclass
class SlidesReport:
    """What the stage wrote."""

    folder: Path
    decks: list[tuple[str, str]] = field(default_factory=list)  # (page, framework)
    changed: int = 0
    removed: int = 0


def deck_files(book: Book, slides: SlidesSection, deck: Deck, plain: Plain) -> dict[str, bytes]:
    """A deck's files under ``_build/slides``: its notebook (its prose plain Markdown, its
    images linked or attached by ``plain``), its page, the figures the page shows (beside
    it, where its relative links point)."""
    fw = deck.framework
    kernelspec = {
        "name": "python3",
        "display_name": f"Python 3 ({book.framework(fw).display_name})",
        "language": "python",
    }
    left, right = slides.top_left, slides.top_right
    page = deck.page.removesuffix(".md")
    rise, _ = plain.notebook(rise_notebook(deck, kernelspec, left, right), deck.page)
    files = {
        f"{fw}/{page}.ipynb": writes(rise).encode(),
        f"{fw}/{page}.html": reveal_html(
            deck, book.root, book.framework(fw).display_name, left, right
        ).encode(),
    }
    base = PurePosixPath(deck.page).parent
    shown = [image_sources(c.source) for c in deck.cells if c.kind == "markdown"]
    for src in dict.fromkeys(src for found in shown for src in found):
        relative = posixpath.normpath((base / src).as_posix())
        path = (book.root / relative).resolve()
        if path.is_relative_to(book.root.resolve()) and path.is_file():
            files[f"{fw}/{relative}"] = path.read_bytes()
    return files


def readme(book: Book, slides: SlidesSection, fw: str, pages: list[str]) -> str:
    """``<framework>/README.md``: the decks, linked for nbviewer's slideshow when
    ``[slides] github_repo`` names where they are published."""
    repo = for_framework(slides.github_repo, fw) if slides.github_repo else ""
    inside = f"{fw}/" if len(slides.github_repo) == 1 else ""
    lines = [f"# {book.project.title}: slides ({book.framework(fw).display_name})", ""]
    for page in pages:
        name = page.removesuffix(".md")
        link = f"{NBVIEWER}/{repo}/blob/main/{inside}{name}.ipynb" if repo else f"{name}.ipynb"
        lines.append(f"- [{name}]({link}) (reveal.js: [{name}.html]({name}.html))")
    return "\n".join(lines) + "\n"


def build_slides(
    executed: Executed,
    book: Book,
    slides: SlidesSection,
    html: HtmlSection,
    output_limit: int,
    reporter: Reporter,
) -> SlidesReport:
    """Every deck of the build's frameworks (see the module's documentation); the decks
    cite the book's bibliography (``Book.bibliography``), ``html`` says where the site is
    published (their references and images link there), ``output_limit`` is ``[build]
    output_limit``."""
    library = executed.library
    report = SlidesReport(slides_dir(book.layout))
    for key, corner in (
        ("top_left", slides.top_left),
        ("top_right", slides.top_right),
    ):
        if REMOTE.search(corner):
            message = f"[slides] {key} loads a file from the network: the decks do too"
            reporter.warn(key_location(book.root, "slides", key), message, "slides.remote")
    files: dict[str, bytes] = {}
    keep: set[Path] = set()
    roots = path_roots(book)
    failed = set(executed.failed)
    for fw in library.tabs:
        site = site_address(html.base_url, book.project.site_url)
        plain = plain_book(library.parsed, site, book.bibliography, fw)
        pages: list[str] = []
        for doc in library.parsed.documents:
            if (doc.path, fw) in failed:
                name = f"{fw}/{doc.path.removesuffix('.md')}"
                keep |= last_good(report.folder, [f"{name}.ipynb", f"{name}.html"])
                continue
            nb = executed.notebooks.get((doc.path, fw))
            if nb is None:
                continue
            cleaned = kept.cleaned(book, output_limit, nb, roots, doc.path, fw, reporter)
            deck = page_deck(doc, cleaned, fw, plain.refs)
            if deck is None:
                continue
            files |= deck_files(book, slides, deck, plain)
            pages.append(doc.path)
            report.decks.append((doc.path, fw))
        for folder in {str(PurePosixPath(f"{fw}/{p}").parent) for p in pages}:
            files[f"{folder}/rise.css"] = RISE_CSS.encode()
        if pages:
            files[f"{fw}/README.md"] = readme(book, slides, fw, pages).encode()
    report.changed = _write(report.folder, files, keep, reporter)
    report.removed = remove_stale(report.folder, keep | {report.folder / n for n in files})
    return report


def _write(folder: Path, files: dict[str, bytes], keep: set[Path], reporter: Reporter) -> int:
    changed = sum(write_atomic(folder / name, data) for name, data in files.items())
    static = folder / STATIC
    changed += write_atomic(static / "polybook-slides.css", slides_css())
    assets = ((reveal(), write_reveal, "reveal.js"), (mathjax(), write_mathjax, "MathJax"))
    for found, write, name in assets:
        if found.is_dir():
            changed += write(static)
        else:
            reporter.warn(Location(str(found)), f"{name} {INSTALL}", "slides")
    keep.update(p for p in static.rglob("*") if p.is_file())
    return changed
