"""An epub per framework of the shipped book (the ``shipped_site`` fixture), read back as a
zip: the structure EPUB 3 asks for (an uncompressed ``mimetype`` first, ``container.xml``
naming the package document, a manifest and spine that hold every content file), every
section of the book, each framework's own code and prose, math drawn as the site's, and the site's
links to each epub; and, without building, the metadata Sphinx's EPUB 3 builder asks for."""

from __future__ import annotations

import re
import subprocess
import zipfile
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup

from polybook.config import load_config
from polybook.epub.stage import EpubJob, epub_config, identifier

from ..books import build, headings, write_book

FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
CHAPTER = "chapter_builders-guide"
NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "x": "http://www.w3.org/1999/xhtml",
}
# A sentence of each framework's own prose (`:begin_tab:`) on the GPUs page.
TAB_PROSE = {
    "pytorch": "tells whether PyTorch found a usable GPU",
    "mxnet": "MXNet publishes separate packages for each CUDA version",
    "jax": "JAX needs its CUDA plugin",
    "tensorflow": "package never can",
}
IMPORTS = {
    "pytorch": "from d2l import torch as d2l",
    "mxnet": "from d2l import mxnet as d2l",
    "jax": "from d2l import jax as d2l",
    "tensorflow": "from d2l import tensorflow as d2l",
}


# Debian's EPUBCheck (``make system-deps``); run with java, as the jar's own launcher needs
# the kernel's binfmt support for jars.
EPUBCHECK = Path("/usr/share/java/epubcheck.jar")


def _epubcheck(epub: Path) -> str:
    """EPUBCheck's report on ``epub``; the test fails, with the report, on any error."""
    assert EPUBCHECK.is_file(), f"{EPUBCHECK} missing: run `make system-deps`"
    run = subprocess.run(
        ["java", "-jar", str(EPUBCHECK), str(epub)], capture_output=True, text=True, check=False
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    return report


def _epub(root: Path, fw: str) -> zipfile.ZipFile:
    return zipfile.ZipFile(root / "_build" / "epub" / f"builders-guide-{fw}.epub")


def _text(book: zipfile.ZipFile, name: str) -> str:
    """The text of a content document, its markup removed, whitespace single."""
    tree = ElementTree.fromstring(book.read(name))
    return " ".join("".join(tree.itertext()).replace("’", "'").split())


def _package(book: zipfile.ZipFile) -> tuple[str, ElementTree.Element]:
    container = ElementTree.fromstring(book.read("META-INF/container.xml"))
    rootfile = container.find("c:rootfiles/c:rootfile", NS)
    assert rootfile is not None and rootfile.get("media-type") == "application/oebps-package+xml"
    path = str(rootfile.get("full-path"))
    return path, ElementTree.fromstring(book.read(path))


def test_the_epubs_metadata_is_complete_and_names_its_framework(tmp_path: Path) -> None:
    root = write_book(tmp_path / "book", {}, "[project]\nname = nb\ntitle = A Book\n")
    config = load_config(root)
    job = EpubJob(config.book, "pytorch")
    settings = epub_config(job, config.build, config.html)
    # What Sphinx's EPUB 3 builder warns about when it is empty.
    for key in ("epub_title", "epub_author", "epub_contributor", "epub_description"):
        assert settings[key], key
    for key in ("epub_publisher", "epub_copyright", "epub_identifier", "version"):
        assert settings[key], key
    assert settings["epub_title"] == "A Book (PyTorch)"
    assert settings["epub_identifier"] == "urn:polybook:nb:pytorch:0"
    assert settings["html_math_renderer"] == "pb-svg"  # the site's: no script, no font
    assert "polybook.epub.sphinx_epub" in settings["extensions"]
    published = replace(
        config,
        html=replace(config.html, base_url="https://example.org/nb/"),
        project=replace(config.project, release="2.0"),
    )
    assert (
        identifier(published.book, published.html, "jax")
        == "https://example.org/nb/_epub/nb-jax.epub"
    )


@pytest.mark.slow
@pytest.mark.parametrize("fw", FRAMEWORKS)
def test_each_epub_is_a_valid_package(shipped_site: Path, fw: str) -> None:
    with _epub(shipped_site, fw) as book:
        first = book.infolist()[0]
        assert first.filename == "mimetype" and first.compress_type == zipfile.ZIP_STORED
        assert book.read("mimetype") == b"application/epub+zip"
        path, package = _package(book)
        assert path == "content.opf" and package.get("version") == "3.0"
        title = package.findtext("opf:metadata/{http://purl.org/dc/elements/1.1/}title", "", NS)
        assert title.endswith(f"({load_config(shipped_site).framework(fw).display_name})")
        names = set(book.namelist())
        items = {item.get("id"): item for item in package.findall("opf:manifest/opf:item", NS)}
        for item in items.values():  # every item is in the zip, and every content file listed
            assert str(item.get("href")) in names, item.get("href")
        listed = {str(item.get("href")) for item in items.values()}
        content = {n for n in names if n.endswith(".xhtml")}
        assert content <= listed
        spine = [ref.get("idref") for ref in package.findall("opf:spine/opf:itemref", NS)]
        assert spine and all(ref in items for ref in spine)
        order = [str(items[ref].get("href")) for ref in spine]
        assert order[0] == "index.xhtml" and order[-1] == "references.xhtml"
        for name in content:  # well-formed XML; inline SVG declared where it is used
            ElementTree.fromstring(book.read(name))
            [item] = [i for i in items.values() if i.get("href") == name]
            has_svg = b"<svg" in book.read(name)
            assert ("svg" in str(item.get("properties", "")).split()) == has_svg, name
            assert b"<math" not in book.read(name), name
        assert any(b'class="pb-math' in book.read(name) for name in content)


@pytest.mark.slow
@pytest.mark.parametrize("fw", FRAMEWORKS)
def test_each_epub_holds_every_section_in_its_framework(shipped_site: Path, fw: str) -> None:
    with _epub(shipped_site, fw) as book:
        nav = _text(book, "nav.xhtml")
        for page in sorted((shipped_site / CHAPTER).glob("*.md")):
            name = f"{CHAPTER}/{page.stem}.xhtml"
            text = _text(book, name)
            title, subs = headings(page)
            for heading in [title, *subs]:
                plain = heading.replace("`", "")
                assert plain in text, (name, heading)
                assert plain in nav, (name, heading)
        gpus = _text(book, f"{CHAPTER}/use-gpu.xhtml")
        assert TAB_PROSE[fw] in gpus
        assert not any(TAB_PROSE[other] in gpus for other in FRAMEWORKS if other != fw)
        code = " ".join(_text(book, n) for n in book.namelist() if n.startswith(CHAPTER))
        assert IMPORTS[fw] in code
        assert not any(IMPORTS[other] in code for other in FRAMEWORKS if other != fw)
        tree = ElementTree.fromstring(book.read(f"{CHAPTER}/use-gpu.xhtml"))
        assert not [e for e in tree.iter() if e.get("role") == "tab"]  # one framework: no tabs
        assert "Raina" in _text(book, "references.xhtml")  # the bibliography, cited entries


@pytest.mark.slow
def test_the_site_links_each_frameworks_epub(shipped_site: Path) -> None:
    html = shipped_site / "_build" / "html"
    page = BeautifulSoup(
        (html / CHAPTER / "use-gpu.html").read_text(encoding="utf-8"), "html.parser"
    )
    for fw in FRAMEWORKS:
        href = f"../_epub/builders-guide-{fw}.epub"
        assert page.select(f'a[data-pb-follow="{fw}"][href="{href}"]'), fw
        held = (html / CHAPTER / href).resolve()
        assert held.read_bytes() == (shipped_site / "_build" / "epub" / held.name).read_bytes()


MATH_PAGE = (
    "# Formulas\n\nInline $a^2 + b_i$.\n\n$$\\mathbf{y} = \\mathbf{X}\\mathbf{w} + b$$\n"
    ":eqlabel:`eq_lin`\n\nAs :eqref:`eq_lin` says.\n\n"
    "```{.python .input}\nimport matplotlib.pyplot as plt\nplt.plot([0, 1, 2], [0, 1, 4])\n"
    "plt.show()\n```\n"
)
DRAWN = re.compile(r'<span class="pb-math [^"]*" role="img" aria-label="([^"]*)">(<svg .*?</svg>)')


@pytest.mark.slow
def test_the_epubs_math_is_the_sites_drawing_and_passes_epubcheck(tmp_path: Path) -> None:
    root = write_book(
        tmp_path / "book",
        {"index.md": "# Math\n\n```toc\nmath\n```\n", "math.md": MATH_PAGE},
        "[project]\nname = m\ntitle = M\n\n[build]\ntabs = pytorch\n",
    )
    assert build(root, "epub") == 0
    assert build(root, "html") == 0
    epub = root / "_build" / "epub" / "m-pytorch.epub"
    with zipfile.ZipFile(epub) as book:
        text = book.read("math.xhtml").decode()
        _, package = _package(book)
        figures = [n for n in book.namelist() if n.startswith("_images/") and n.endswith(".svg")]
    drawn = dict(DRAWN.findall(text))
    assert set(drawn) == {"a to the power 2 + b sub i", "y = X w + b"}  # read out in words
    assert "<math" not in text and 'class="eqno">(1)' in text
    site = dict(DRAWN.findall((root / "_build" / "html" / "math.html").read_text()))
    assert drawn == site  # the same drawing as the site's
    [item] = [i for i in package.iter() if i.get("href") == "math.xhtml"]
    assert item.get("properties") == "svg"
    assert len(figures) == 1  # the plot, a drawing
    assert "0 fatals / 0 errors / 0 warnings" in _epubcheck(epub)


@pytest.mark.slow
@pytest.mark.parametrize("fw", FRAMEWORKS)
def test_each_epub_passes_epubcheck(shipped_site: Path, fw: str) -> None:
    report = _epubcheck(shipped_site / "_build" / "epub" / f"builders-guide-{fw}.epub")
    assert "0 fatals / 0 errors / 0 warnings" in report, report


@pytest.mark.slow
def test_the_ncx_names_the_book_as_the_package_does(tmp_path: Path) -> None:
    root = write_book(
        tmp_path / "book",
        {"index.md": "# Tiny\n\n```toc\npage\n```\n", "page.md": "# Page\n\nWords.\n"},
        "[project]\nname = t\ntitle = T\n\n[build]\ntabs = jax\n",
    )
    assert build(root, "epub") == 0
    epub = root / "_build" / "epub" / "t-jax.epub"
    with zipfile.ZipFile(epub) as book:
        ncx = ElementTree.fromstring(book.read("toc.ncx"))
    ns = {"n": "http://www.daisy.org/z3986/2005/ncx/"}
    [uid] = [
        m.get("content") for m in ncx.iterfind("n:head/n:meta", ns) if m.get("name") == "dtb:uid"
    ]
    assert uid == "urn:polybook:t:jax:0"
    assert "0 fatals / 0 errors" in _epubcheck(epub)
