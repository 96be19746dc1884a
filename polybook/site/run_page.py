"""The site's "Run the notebooks" page: how a reader sets up and runs the book's notebooks,
on their own machine (a venv, the library's wheel the site publishes, Jupyter) or on Colab,
SageMaker Studio Lab and Kaggle, with the book's own values: the wheel's name, the
framework pins its notebooks install."""

from __future__ import annotations

import html
import shlex

from polybook.diagnostics import PolybookError
from polybook.layout import DIST_LINK, NOTEBOOKS_LINK
from polybook.library.package_spec import package_spec
from polybook.library.pins import requirement_line
from polybook.library.wheel import distribution, wheel_name
from polybook.notebooks.library_source import INDEX, InstallSettings, library_source
from polybook.notebooks.variants import REGISTRY, Repositories
from polybook.render.myst import Lines
from polybook.render.page import Page
from polybook.site.sections import SiteSections

PAGE = "run-the-notebooks"


def _pins(site: SiteSections, frameworks: tuple[str, ...]) -> tuple[str, str, dict[str, list[str]]]:
    """The library's import package, its distribution name and each framework's pinned
    distributions (CPU); empty where the library's files are not there."""
    book = site.book
    try:
        spec = package_spec(book, frameworks)
    except PolybookError:
        return "", "", {}
    pins = {
        fw: [requirement_line(book.framework(fw), r.name, "cpu") for r in spec.extras[fw]]
        for fw in frameworks
        if fw in spec.extras
    }
    return spec.name, distribution(site.library, spec.name), pins


def _published(site: SiteSections, key: str, fw: str) -> bool:
    return bool(REGISTRY[key].url(Repositories(site.colab, site.sagemaker), "index.md", fw))


def run_page(site: SiteSections, frameworks: tuple[str, ...]) -> list[Page]:
    """The page, for the site that offers the notebooks of ``frameworks``; none without."""
    if not frameworks:
        return []
    book = site.book
    package, dist, pins = _pins(site, frameworks)
    release = book.project.release
    wheel = wheel_name(dist, release) if dist and release else ""
    first = frameworks[0]
    names = {fw: book.framework(fw).display_name for fw in frameworks}
    lines = [
        "# Run the notebooks",
        "",
        "Every page with code can be downloaded as a Jupyter notebook (the *Download the"
        " notebook* link under its title). Its first code cell installs what the page needs:"
        " the libraries the page names, this book's library and the framework at the version"
        " the book was built with. Run that cell first.",
        "",
        "## The book's library and frameworks",
        "",
    ]
    if wheel:
        settings = InstallSettings(
            site.library, book.project, site.html, Repositories(site.colab, site.sagemaker)
        )
        source = library_source(settings, package, REGISTRY["jupyter"], first)
        href = html.escape(f"{DIST_LINK}/{wheel}")
        lines += [
            "```{raw} html",
            f"<p>The book's library is the package <code>{html.escape(dist)}</code>"
            f" {html.escape(release)}, published with this site as"
            f' <a class="pb-wheel" href="{href}" download>{html.escape(wheel)}</a>. The'
            f" notebooks install it as <code>{html.escape(source.requirement)}</code>.</p>",
            "```",
            "",
        ]
        if source.origin == INDEX:  # another project's, maybe: the wheel goes first
            lines += [
                "This site's address is not configured, so the notebooks' first cell names the"
                f" package index's `{source.requirement}`. Install the wheel first instead:"
                " on a platform, upload it beside the notebook and run"
                f" `%pip install {wheel}` before the notebook's first cell.",
                "",
            ]
    lines += ["The frameworks, at the versions the book was built with:", ""]
    for fw in frameworks:
        listed = ", ".join(f"`{p}`" for p in pins.get(fw, [])) or "none pinned"
        lines.append(f"- {names[fw]}: {listed}")
    lines += [
        "",
        "## On your own machine",
        "",
        "Make a virtual environment, install the library's wheel and one framework into it,"
        " and start Jupyter in the folder of the downloaded notebooks:",
        "",
        "```bash",
        "python3 -m venv book-env",
        "source book-env/bin/activate",
    ]
    library = wheel or dist or ""
    for fw in frameworks:
        wanted = " ".join(shlex.quote(p) for p in [library, *pins.get(fw, [])] if p)
        if wanted:
            lines.append(f"pip install {wanted}  # {names[fw]}")
    lines += [
        "pip install jupyter",
        "jupyter notebook",
        "```",
        "",
        f"Download the wheel first (the link above) and run `pip install` in its folder."
        f" Every framework's notebooks are also in `{NOTEBOOKS_LINK}/<framework>/` on this"
        " site. The install cell of a notebook then finds everything installed already.",
        "",
    ]
    for key, platform, how in (
        ("colab", "Colab", "In Colab, choose *File › Upload notebook*"),
        ("sagemaker", "SageMaker Studio Lab", "In SageMaker Studio Lab, choose *File › Upload*"),
    ):
        lines += [f"## {platform}", ""]
        if any(_published(site, key, fw) for fw in frameworks):
            lines.append(f"Each page with code has an *Open in {platform}* button.")
        lines += [
            f"{how} and pick a downloaded notebook; run its first cell, which installs the"
            " book's library and the framework, then the rest.",
            "",
        ]
    lines += ["## Kaggle", ""]
    if any(_published(site, "colab", fw) for fw in frameworks):
        lines.append("Each page with code has an *Open in Kaggle* button.")
    lines += [
        "On Kaggle, create a notebook, choose *File › Import notebook* and pick a downloaded"
        " notebook. Turn on *Internet* in the notebook's settings, so that its first cell can"
        " install the book's library and the framework.",
        "",
        "Pages that need a GPU say so at their top: choose a GPU runtime (Colab, Kaggle) or"
        " instance (SageMaker Studio Lab) before running them.",
    ]
    page = Page(PAGE, Lines())
    page.lines.add("\n".join(lines), 1)
    return [page]
