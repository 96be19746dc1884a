"""d2l prose as plain Markdown: what every notebook polybook writes for people shows (the
site's downloads, the students' Jupyter, Colab and SageMaker notebooks, the slides' RISE
notebooks), and any output that Sphinx does not render.

References read as the site numbers them, linked to the published site when there is one;
citations read "He et al. (2016)", their entries listed in a last "References" cell; label
lines, image sizes and reStructuredText (``eval_rst``, which only Sphinx reads) go; a
```` ```toc ```` block becomes a list of links to the listed pages' notebooks; an image the
book holds is linked on the published site, else attached to its cell. Code (spans and
fences) is left as written.
"""

from __future__ import annotations

import base64
import mimetypes
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from nbformat import NotebookNode

from polybook.layout import NOTEBOOKS_LINK
from polybook.memo import digest
from polybook.nb import copy_notebook, new_markdown_cell
from polybook.source.book import ParsedBook
from polybook.source.numbering import numbering, page_numbers
from polybook.source.readable import Readable, read_citations, site_link
from polybook.source.scan import IMAGE, TRAILING_EQLABEL, scan

# d2l's marks on lines of their own: polybook reads them, a notebook would show them raw.
MARK_LINE = re.compile(r"^\s*:(label|eqlabel|width|height):`[^`]*`\s*$")
# An image's options written on its own line, after it.
IMAGE_OPTIONS = re.compile(r"(\)|>)\s*(?::(?:label|width|height):`[^`]*`\s*)+$")
EVAL_RST, TOC = "eval_rst", "toc"
REFERENCES_ID = "polybook-references"


def image_sources(markdown: str) -> list[str]:
    """The images ``markdown`` shows from files (relative to its page), as written."""
    found = [m.group(2) for m in IMAGE.finditer(markdown)]
    return list(dict.fromkeys(s for s in found if not _remote(s)))


def _remote(src: str) -> bool:
    return "://" in src or src.startswith(("data:", "attachment:", "/"))


@dataclass(frozen=True)
class PlainText:
    """One cell's Markdown as readers read it, the images it attaches (name -> MIME bundle),
    the book's files it shows (paths from the book's root) and the entries it cites."""

    text: str
    attachments: dict[str, dict[str, str]] = field(default_factory=dict)
    images: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()


@dataclass
class _Found:
    """What a cell's images turned out to be: attachments (name -> MIME bundle) and the
    book's files shown."""

    attachments: dict[str, dict[str, str]] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Plain:
    """How one framework's notebooks show the book's prose."""

    refs: Readable  # roles as text, linked to the site where it is published
    root: Path  # the book's root: the images are read from there
    site: str = ""  # the published site's address, ending in "/" ("" for none)
    pages: Mapping[str, str] = field(default_factory=dict)  # docname -> "1.2 Title"
    entries: Mapping[str, str] = field(default_factory=dict)  # BibTeX key -> its entry

    def identity(self) -> str:
        """A digest of what this rendering depends on besides a notebook and its images."""
        targets = sorted((k, repr(v)) for k, v in self.refs.targets.items())
        citations = sorted((k, repr(v)) for k, v in self.refs.citations.items())
        link = self.refs.link("PAGE", "ANCHOR")
        parts = (targets, citations, link, str(self.root), self.site, self.pages, self.entries)
        return digest(*parts)

    def _image(self, page: str, src: str, found: _Found) -> str:
        """Where ``src`` (as ``page`` writes it) opens from a notebook read anywhere."""
        if _remote(src):
            return src
        relative = posixpath.normpath(posixpath.join(posixpath.dirname(page), src))
        path = (self.root / relative).resolve()
        if relative.startswith("../") or not path.is_file():
            return src  # not the book's: the source check says so
        if not path.is_relative_to(self.root.resolve()):
            return src
        found.shown.append(relative)
        if self.site:
            return f"{self.site}{NOTEBOOKS_LINK}/{relative}"
        name = relative.replace("/", "-")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        found.attachments[name] = {mime: base64.b64encode(path.read_bytes()).decode("ascii")}
        return f"attachment:{name}"

    def _toc(self, page: str, lines: list[str]) -> list[str]:
        """A toc block's entries as links to their pages' notebooks (beside this one)."""
        base = PurePosixPath(page).parent
        items = []
        for entry in (line.strip() for line in lines):
            if not entry or entry.startswith(":"):
                continue
            docname = posixpath.normpath((base / entry).as_posix()).removesuffix(".md")
            title = self.pages.get(docname, entry)
            items.append(f"- [{title}]({entry.removesuffix('.md')}.ipynb)")
        return items

    def _line(self, line: str, page: str, found: _Found) -> str | None:
        """A prose line (outside code) as readers read it; None for one that goes."""
        if MARK_LINE.match(line):
            return None
        if trailing := TRAILING_EQLABEL.match(line):
            line = trailing.group("math")  # the math without its label
        line = IMAGE_OPTIONS.sub(r"\1", line)
        return IMAGE.sub(lambda m: m.group(1) + self._image(page, m.group(2), found), line)

    def markdown(self, source: str, page: str) -> PlainText:
        """One Markdown cell of ``page`` (``chap/x.md``) as readers read it."""
        lines: list[str | None] = list(source.split("\n"))
        index = scan(source, 0)
        found = _Found()
        for number, line in index.lines():
            if (plain := self._line(line, page, found)) is not None:
                plain = self.refs.line(plain)
            lines[number] = plain
        for fence in index.fences:
            if fence.info not in (EVAL_RST, TOC):
                continue  # code, as written
            inner = [lines[n] or "" for n in fence.body]
            toc = self._toc(page, inner) if fence.info == TOC else []
            lines[fence.line : fence.end + 1] = [None] * (fence.end + 1 - fence.line)
            lines[fence.line] = "\n".join(["", *toc, ""]) if fence.info == TOC else None
        text = "\n".join(x for x in lines if x is not None).strip("\n")
        return PlainText(text, found.attachments, tuple(found.shown), index.cited())

    def references(self, keys: list[str]) -> str:
        """The last cell of a notebook that cites ``keys``: their entries."""
        lines = [f"- {self.entries.get(k) or k}" for k in dict.fromkeys(keys)]
        return "## References\n\n" + "\n".join(lines)

    def notebook(self, nb: NotebookNode, page: str) -> tuple[NotebookNode, list[str]]:
        """``nb`` (left untouched) as readers read it, empty Markdown cells dropped, and the
        book's images it shows (paths from the root)."""
        out = copy_notebook(nb)
        cells: list[NotebookNode] = []
        cited: list[str] = []
        shown: list[str] = []
        for cell in out.cells:
            if cell.cell_type == "markdown":
                plain = self.markdown(cell.source, page)
                if not plain.text.strip():
                    continue
                cell.source = plain.text
                if plain.attachments:
                    cell["attachments"] = plain.attachments
                cited += plain.cited
                shown += plain.images
            cells.append(cell)
        if cited:
            cells.append(new_markdown_cell(self.references(cited), REFERENCES_ID))
        out.cells = cells
        return out, list(dict.fromkeys(shown))


def page_titles(book: ParsedBook) -> dict[str, str]:
    """Each page's title as a toc lists it: "1.2 Title" where the site numbers it."""
    numbers = page_numbers(book)
    titles = {}
    for doc in book.documents:
        title = doc.docname.rsplit("/", 1)[-1]
        found = next((h.title for h in doc.index.headings if h.depth == 1), title)
        number = ".".join(map(str, numbers.get(doc.path, ())))
        titles[doc.path.removesuffix(".md")] = f"{number} {found}" if number else found
    return titles


def site_address(base_url: str, site_url: str = "") -> str:
    """The published site's address, ending in "/" ("" when it is not published)."""
    address = base_url or site_url
    return address.rstrip("/") + "/" if address else ""


def plain_book(book: ParsedBook, site: str, bibfile: Path | None, framework: str) -> Plain:
    """How ``framework``'s notebooks of ``book`` show its prose: references linked to
    ``site`` (see :func:`site_address`), citations read from ``bibfile``."""
    citations = read_citations(bibfile)
    refs = Readable(numbering(book), citations, site_link(site, framework))
    entries = {key: c.entry for key, c in citations.items()}
    return Plain(refs, book.book.root, site, page_titles(book), entries)
