"""The keys of the outputs' sections: ``[colab]``, ``[sagemaker]``, ``[html]``, ``[pdf]``,
``[slides]``."""

from __future__ import annotations

from polybook.config.schema.key import Key

OUTPUT_KEYS: tuple[Key, ...] = (
    Key(
        "colab",
        "github_repo",
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/notebooks/` for"
        " “Open in Colab” links, or `framework owner/name` pairs, each holding that"
        " framework's `colab/` folder at its root (d2lbook's layout)",
        pairs=True,
    ),
    Key(
        "colab",
        "branch",
        "str",
        "main",
        "the branch of `github_repo` that Colab opens",
        d2lbook=False,
    ),
    Key(
        "sagemaker",
        "kernel",
        "words",
        ("python3",),
        "the Jupyter kernel of the SageMaker notebooks, or `framework kernel` pairs",
        pairs=True,
    ),
    Key(
        "sagemaker",
        "github_repo",
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/notebooks/` for “Open in"
        " SageMaker Studio Lab” links, or `framework owner/name` pairs, each holding that"
        " framework's `sagemaker/` folder at its root",
        pairs=True,
        attr="sagemaker_repo",
    ),
    Key(
        "sagemaker",
        "branch",
        "str",
        "main",
        "the branch of `github_repo` that SageMaker Studio Lab opens",
        d2lbook=False,
        attr="sagemaker_branch",
    ),
    Key(
        "html",
        "favicon",
        "path",
        "",
        "the site's favicon (`.ico`, `.png` or `.svg`), relative to the book root",
        absolute=True,
    ),
    Key(
        "html",
        "html_logo",
        "path",
        "",
        "the logo above the site's navigation, relative to the book root",
        absolute=True,
    ),
    Key(
        "html",
        "base_url",
        "url",
        "",
        "the address the site is published at (`https://example.org/book/`): each page"
        " names its canonical URL there, and the site gets a `sitemap.xml`",
        d2lbook=False,
    ),
    Key(
        "html",
        "serve_port",
        "int",
        0,
        "the port `polybook serve` listens on (on 127.0.0.1)",
        d2lbook=False,
        default_text="`0` (the first free one from 8000)",
    ),
    Key(
        "html",
        "figure_format",
        "choice",
        "svg",
        "how executed notebooks draw matplotlib figures: `svg` (drawings, sharp at any size;"
        " sanitised on the site, converted for the PDFs) or `png` (raster at twice the"
        " pixels, shown at the usual size); a cell that sets its own format keeps it",
        d2lbook=False,
        choices=("svg", "png"),
    ),
    Key(
        "pdf",
        "bibfile",
        "path",
        "",
        "the BibTeX file that `:cite:` keys name; the site lists the cited entries",
        suffix=".bib",
        absolute=True,
    ),
    Key(
        "pdf",
        "latex_logo",
        "path",
        "",
        "the image on the PDFs' title page (`.pdf`, `.png`, `.jpg` or `.svg`), relative to"
        " the book root",
        absolute=True,
    ),
    Key("pdf", "main_font", "str", "", "the PDFs' body font", default_text="`FreeSerif`"),
    Key("pdf", "sans_font", "str", "", "the PDFs' headings font", default_text="`FreeSans`"),
    Key(
        "pdf",
        "mono_font",
        "str",
        "",
        "the PDFs' code and outputs font (it needs the outputs' characters, e.g. box drawing)",
        default_text="`DejaVu Sans Mono`",
    ),
    Key(
        "slides",
        "top_left",
        "str",
        "",
        "HTML shown at the top left of every slide (a course's name, a logo)",
        attr="slides_top_left",
    ),
    Key(
        "slides",
        "top_right",
        "str",
        "",
        "HTML shown at the top right of every slide",
        attr="slides_top_right",
    ),
    Key(
        "slides",
        "github_repo",
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/slides/`, or `framework"
        " owner/name` pairs, each holding that framework's slides at its root (d2lbook's"
        " layout): each framework's `README.md` links its decks for nbviewer's slideshow",
        pairs=True,
        attr="slides_repo",
    ),
)
