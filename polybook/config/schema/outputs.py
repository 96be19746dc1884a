"""The outputs' sections: ``[colab]``, ``[sagemaker]``, ``[html]``, ``[pdf]``, ``[slides]``;
each key declared once, as a field of its section's dataclass, with the stages that read it
(``read_by``: each output's no-op check holds the keys it reads, and a test holds every
stage's reads to these declarations)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from polybook.config.schema.key import key
from polybook.config.schema.links import HeaderLink, header_links


@dataclass(frozen=True)
class ColabSection:
    """``[colab]``: where the Colab notebooks are published."""

    SECTION: ClassVar[str] = "colab"

    github_repo: tuple[str, ...] = key(
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/notebooks/` for"
        " “Open in Colab” links, or `framework owner/name` pairs, each holding that"
        " framework's `colab/` folder at its root (d2lbook's layout)",
        pairs=True,
        read_by=("notebooks", "html"),
        default_text="`[project] repository` (its `notebooks_branch`), when set",
    )
    branch: str = key(
        "str",
        "main",
        "the branch of `github_repo` that Colab opens",
        d2lbook=False,
        read_by=("notebooks", "html"),
        default_text="`main`; `[project] notebooks_branch` for the book's own repository",
    )


@dataclass(frozen=True)
class SagemakerSection:
    """``[sagemaker]``: where the SageMaker Studio Lab notebooks are published."""

    SECTION: ClassVar[str] = "sagemaker"

    kernel: tuple[str, ...] = key(
        "words",
        ("python3",),
        "the Jupyter kernel of the SageMaker notebooks, or `framework kernel` pairs",
        pairs=True,
        read_by=("notebooks",),
    )
    github_repo: tuple[str, ...] = key(
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/notebooks/` for “Open in"
        " SageMaker Studio Lab” links, or `framework owner/name` pairs, each holding that"
        " framework's `sagemaker/` folder at its root",
        pairs=True,
        read_by=("notebooks", "html"),
        default_text="`[project] repository` (its `notebooks_branch`), when set",
    )
    branch: str = key(
        "str",
        "main",
        "the branch of `github_repo` that SageMaker Studio Lab opens",
        d2lbook=False,
        read_by=("notebooks", "html"),
        default_text="`main`; `[project] notebooks_branch` for the book's own repository",
    )


@dataclass(frozen=True)
class HtmlSection:
    """``[html]``: the site."""

    SECTION: ClassVar[str] = "html"

    header_links: tuple[str, ...] = key(
        "links",
        (),
        "links in the site's header, one `name, URL, icon` a line: the icon a Font Awesome"
        " class (`fas fa-file-pdf`, `fab fa-github`), drawn by polybook's own icons (an icon"
        " it lacks is left out, the name kept); a relative URL is the site's file. A line that"
        " is not whole links, or a link without a name or URL, is a warning at its line",
        read_by=("html",),
    )
    favicon: str = key(
        "path",
        "",
        "the site's favicon (`.ico`, `.png` or `.svg`), relative to the book root; a missing"
        " file is a warning at its line",
        absolute=True,
        read_by=("html",),
    )
    html_logo: str = key(
        "path",
        "",
        "the logo above the site's navigation, relative to the book root; a missing file is a"
        " warning at its line",
        absolute=True,
        read_by=("html",),
    )
    base_url: str = key(
        "url",
        "",
        "the address the site is published at (`https://example.org/book/`): each page"
        " names its canonical URL there, and the site gets a `sitemap.xml`",
        d2lbook=False,
        read_by=("html", "epub", "notebooks", "slides"),
    )
    serve_port: int = key(
        "int",
        0,
        "the port `polybook serve` listens on (on 127.0.0.1)",
        d2lbook=False,
        default_text="`0` (the first free one from 8000)",
        read_by=("serve",),
    )
    figure_format: str = key(
        "choice",
        "svg",
        "how executed notebooks draw matplotlib figures: `svg` (drawings, sharp at any size;"
        " sanitised on the site, converted for the PDFs) or `png` (raster at twice the"
        " pixels, shown at the usual size); a cell that sets its own format keeps it",
        d2lbook=False,
        choices=("svg", "png"),
        read_by=("eval",),
    )

    @property
    def links(self) -> tuple[HeaderLink, ...]:
        """The links of ``header_links``."""
        return header_links(self.header_links)


@dataclass(frozen=True)
class PdfSection:
    """``[pdf]``: the PDFs."""

    SECTION: ClassVar[str] = "pdf"

    bibfile: str = key(
        "path",
        "",
        "d2lbook's name of `[project] bibfile`, read as it where that is not set",
        suffix=".bib",
        absolute=True,
        read_by=("lib",),
    )
    latex_logo: str = key(
        "path",
        "",
        "the image on the PDFs' title page (`.pdf`, `.png`, `.jpg` or `.svg`), relative to"
        " the book root",
        absolute=True,
        read_by=("pdf",),
    )
    main_font: str = key(
        "str", "", "the PDFs' body font", default_text="`FreeSerif`", read_by=("pdf",)
    )
    sans_font: str = key(
        "str", "", "the PDFs' headings font", default_text="`FreeSans`", read_by=("pdf",)
    )
    mono_font: str = key(
        "str",
        "",
        "the PDFs' code and outputs font (it needs the outputs' characters, e.g. box drawing)",
        default_text="`DejaVu Sans Mono`",
        read_by=("pdf",),
    )


@dataclass(frozen=True)
class SlidesSection:
    """``[slides]``: the slide decks."""

    SECTION: ClassVar[str] = "slides"

    top_left: str = key(
        "str",
        "",
        "HTML shown at the top left of every slide (a course's name, a logo)",
        read_by=("slides",),
    )
    top_right: str = key(
        "str", "", "HTML shown at the top right of every slide", read_by=("slides",)
    )
    github_repo: tuple[str, ...] = key(
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/slides/`, or `framework"
        " owner/name` pairs, each holding that framework's slides at its root (d2lbook's"
        " layout): each framework's `README.md` links its decks for nbviewer's slideshow",
        pairs=True,
        read_by=("slides",),
    )
