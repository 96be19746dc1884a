"""Sphinx's settings that every output of the book shares, derived from its config (no
``conf.py`` is written): the project, MyST, numbering, math, citations, autodoc and the
render core's extension. Each output adds its own builder's settings on top."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from polybook.config import Book
from polybook.config.schema import BuildSection
from polybook.fsutil import file_hash
from polybook.library.model import SavedBlock
from polybook.paths import PACKAGE_ROOT
from polybook.render.autodoc import autodoc_settings
from polybook.render.messages import CATALOG, catalog
from polybook.render.names import BIBFILE, CITE_STYLE

RENDER_CODE = Path(__file__).resolve().parent.parent  # the render core, its adapter inside
# The library code the extension imports: the saved names it links.
LIBRARY_CODE = PACKAGE_ROOT / "library"
# Packages that shape every page.
PACKAGES = (
    *("sphinx", "myst-parser", "furo", "docutils", "sphinx-copybutton", "sphinx-sitemap"),
    *("sphinxcontrib-bibtex", "pybtex", "nh3", "rjieba"),
)
# d2lbook's ``lang = zh`` is Sphinx's and docutils' ``zh_CN`` (their own strings, the search)
# Docutils knows Portuguese only as pt_br (its words for "Figure", "Contents"): a plain `pt`
# book (d2l-pt) is read as Brazilian Portuguese, not warned about on every page.
SPHINX_LANGUAGES = {
    "zh": "zh_CN",
    "zh-cn": "zh_CN",
    "zh-tw": "zh_TW",
    "pt": "pt_BR",
    "pt-br": "pt_BR",
}


# MyST's syntax on every page (attrs_inline: Pandoc's spans, `[text]{.kicker}`; attrs_block:
# a heading's class); the site's math is read with them before Sphinx (see .math_prefetch).
MYST_EXTENSIONS = ("dollarmath", "amsmath", "colon_fence", "attrs_inline", "attrs_block")
MYST_DOUBLE_INLINE = True  # `$$…$$` inside a paragraph: display math


def sphinx_language(lang: str) -> str:
    """The Sphinx language code of the book's ``[project] lang``."""
    return SPHINX_LANGUAGES.get(lang.lower(), lang.replace("-", "_"))


def sphinx_suppressed(entries: Iterable[str]) -> list[str]:
    """The book's ``render.<type>[.<subtype>]`` suppressions as Sphinx's own types."""
    return [e.removeprefix("render.") for e in entries if e.startswith("render.")]


def core_config(
    book: Book,
    build: BuildSection,
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
    leading: Sequence[str] = (),
    output: Sequence[str] = (),
) -> dict[str, Any]:
    """The settings every output shares. ``leading`` extensions load right after MyST's,
    ``output`` ones right after the render core's; ``libraries`` are what autodoc imports
    (see :mod:`polybook.render.autodoc`). ``build`` gives the book's Sphinx extensions and
    suppressed warnings; the book, its bibliography (``Book.bibliography``)."""
    cited = book.bibliography is not None
    words = catalog(book.project.lang)
    settings: dict[str, Any] = {
        "project": book.project.title,
        "author": book.project.author,
        "copyright": book.project.copyright,
        "release": book.project.release,
        "language": sphinx_language(book.project.lang),
        "root_doc": "index",
        "extensions": list(
            dict.fromkeys(
                [
                    "myst_parser",
                    *leading,
                    *(["sphinxcontrib.bibtex"] if cited else []),
                    "polybook.render.sphinx.core_ext",
                    *output,
                    "polybook.render.sphinx.highlight",  # IPython syntax in code cells
                    "sphinx.ext.autodoc",  # for `eval_rst` blocks, on in d2lbook too
                    *build.sphinx_extensions,
                ]
            )
        ),
        "source_suffix": {".md": "markdown"},
        "exclude_patterns": ["_pb_outputs/**"],
        "myst_enable_extensions": list(MYST_EXTENSIONS),
        "myst_dmath_double_inline": MYST_DOUBLE_INLINE,
        "myst_heading_anchors": 3,
        "numfig": True,
        "numfig_secnum_depth": 2,
        "numfig_format": {
            "figure": words["numfig_figure"],
            "table": words["numfig_table"],
            "code-block": words["numfig_code"],
            "section": words["numfig_section"],
        },
        "math_numfig": True,
        "math_eqref_format": "({number})",
        "pb_book_root": str(book.root),
        "pb_allowed_paths": [str(p) for p in book.confinement.allowed],
        "pb_tabs": list(book.tabs),
        "pb_tab_names": {t: book.framework(t).display_name for t in book.tabs},
        # toc.not_included: the reader says so at the page ([polybook.toc]), once
        "suppress_warnings": [
            "myst.header",
            "toc.not_included",
            *sphinx_suppressed(build.suppress_warnings),
        ],
        "add_module_names": False,  # API entries read as readers call them: d2l.try_gpu
        "pb_bibliography": cited,
        **autodoc_settings(book, libraries or {}),
    }
    if cited:
        settings |= {
            "bibtex_bibfiles": [BIBFILE],
            "bibtex_reference_style": CITE_STYLE,
            "bibtex_default_style": "plain",
        }
    if "sphinx.ext.autosummary" in build.sphinx_extensions:
        # autosummary tables in `eval_rst` blocks, without stub pages (they need .rst sources)
        settings["autosummary_generate"] = False
    return settings


def hash_tree(digest: hashlib._Hash, folder: Path, files: Iterable[Path]) -> None:
    """Add the names (relative to ``folder``) and contents of ``files`` to ``digest``."""
    for path in sorted(p for p in files if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(file_hash(path) or b"-")


def tool_digest(*output_code: Path) -> str:
    """Hash of what renders every page of an output: the render core's code (its adapter
    to Sphinx included), the output's own (its folders, static files included), the library
    code the extension imports, the message catalog, and the versions of the packages that
    shape every page. Sphinx does not know when its extensions change: a new digest rereads
    every page."""
    digest = hashlib.sha256()
    for folder in (RENDER_CODE, LIBRARY_CODE, *output_code):
        digest.update(folder.name.encode() + b"\0")
        hash_tree(digest, folder, [*folder.rglob("*.py"), *(folder / "static").rglob("*")])
    hash_tree(digest, CATALOG.parent, [*CATALOG.glob("*.json")])  # the words on every page
    digest.update(_package_versions().encode())
    return digest.hexdigest()


@functools.cache
def _package_versions() -> str:
    """The versions of the packages that shape every page, as installed for this process."""
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name}=={metadata.version(name)}\n")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing\n")
    return "".join(found)
