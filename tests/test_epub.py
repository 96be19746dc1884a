"""An epub per framework of the shipped book (the ``shipped_site`` fixture), read back as a
zip: the structure EPUB 3 asks for (an uncompressed ``mimetype`` first, ``container.xml``
naming the package document, a manifest and spine that hold every content file), every
section of the book, each framework's own code and prose, math as MathML, and the site's
links to each epub; and, without building, the metadata Sphinx's EPUB 3 builder asks for."""

from __future__ import annotations

import logging
import subprocess
import zipfile
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pytest

from polybook.config import load_config
from polybook.epub.stage import EpubJob, epub_config, identifier

from .books import Collect, build, headings, write_book

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
    settings = epub_config(config, EpubJob(config, "pytorch"))
    # What Sphinx's EPUB 3 builder warns about when it is empty.
    for key in ("epub_title", "epub_author", "epub_contributor", "epub_description"):
        assert settings[key], key
    for key in ("epub_publisher", "epub_copyright", "epub_identifier", "version"):
        assert settings[key], key
    assert settings["epub_title"] == "A Book (PyTorch)"
    assert settings["epub_identifier"] == "urn:polybook:nb:pytorch:0"
    assert settings["html_math_renderer"] == "mathml"  # no script, no network
    assert "polybook.epub.sphinx_epub" in settings["extensions"]
    published = replace(
        config,
        html=replace(config.html, base_url="https://example.org/nb/"),
        project=replace(config.project, release="2.0"),
    )
    assert identifier(published, "jax") == "https://example.org/nb/_epub/nb-jax.epub"


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
        for name in content:  # well-formed XML; MathML declared where it is used
            ElementTree.fromstring(book.read(name))
            [item] = [i for i in items.values() if i.get("href") == name]
            has_math = b"<math" in book.read(name)
            assert ("mathml" in str(item.get("properties", ""))) == has_math, name
        assert any(b"<math" in book.read(name) for name in content)


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
    page = (html / CHAPTER / "use-gpu.html").read_text(encoding="utf-8")
    for fw in FRAMEWORKS:
        href = f"../_epub/builders-guide-{fw}.epub"
        assert f'data-pb-follow="{fw}" href="{href}"' in page
        held = (html / CHAPTER / href).resolve()
        assert held.read_bytes() == (shipped_site / "_build" / "epub" / held.name).read_bytes()


@pytest.mark.slow
def test_a_formula_mathml_cannot_hold_shows_as_tex_with_a_warning_at_its_line(
    tmp_path: Path,
) -> None:
    page = "Fine: $a^2 + b_i$.\n\nNot MathML: $\\undefinedmacro{x}$.\n"
    root = write_book(
        tmp_path / "book",
        {"index.md": "# Math\n\n```toc\nmath\n```\n", "math.md": f"# Formulas\n\n{page}"},
        "[project]\nname = m\ntitle = M\n\n[build]\ntabs = jax\n",
    )
    collect = Collect()
    logger = logging.getLogger("polybook")
    logger.addHandler(collect)
    try:
        assert build(root, "epub") == 0
    finally:
        logger.removeHandler(collect)
    [warning] = [m for m in collect.messages if "[polybook.render.epub.math]" in m]
    assert warning.startswith("math.md:5 [jax]: this formula shows as TeX in the epub")
    with zipfile.ZipFile(root / "_build" / "epub" / "m-jax.epub") as book:
        text = book.read("math.xhtml").decode()
    assert "<math" in text and "<msubsup>" not in text  # a^2 and b_i: msup, msub
    assert '<code class="pb-tex">\\undefinedmacro{x}</code>' in text


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
