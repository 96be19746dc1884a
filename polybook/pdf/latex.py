"""One framework's PDF: Sphinx's LaTeX builder, then latexmk with xelatex.

Each framework has a folder of its own, ``_build/latex/<framework>/``: Sphinx's sources
(``src``), its doctrees and the LaTeX run (``tex``), so that a second build rereads only
what changed and latexmk reruns xelatex only when the ``.tex`` did. The finished PDF is
copied atomically to ``_build/pdf/``; a failed run leaves the last good one there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.config import Book
from polybook.config.ini_text import key_location
from polybook.config.schema import BuildSection, PdfSection
from polybook.diagnostics import Diagnostic, Location
from polybook.fsutil import write_atomic
from polybook.library.model import SavedBlock
from polybook.pdf import log as latex_log
from polybook.pdf.cjk import CjkSettings, cjk_settings, has_tex_file, uses_xecjk
from polybook.pdf.fonts import DEFAULT_FONTS, DEFAULTS, Fonts, installed_fonts, pdf_fonts
from polybook.pdf.places import latex_dir, pdf_file, sphinx_inputs
from polybook.render.names import BIBFILE, INDEX_FILE
from polybook.render.page import Page
from polybook.render.sources import write_sources
from polybook.render.sphinx.config import core_config, tool_digest
from polybook.render.sphinx.job import job_settings, job_warnings, run_job_sphinx
from polybook.render.sphinx.process import CRASH_LINES, REPORTED_FAILURE

PDF_CODE = Path(__file__).resolve().parent
TOOLS = ("xelatex", "latexmk", "rsvg-convert")
# What a PDF needs from Debian (the Makefile's pdf-deps installs the same list).
DEBIAN_PACKAGES = (
    "texlive-xetex",
    "texlive-latex-recommended",
    "texlive-latex-extra",
    "texlive-fonts-recommended",
    "tex-gyre",
    "fonts-freefont-otf",
    "fonts-dejavu-core",
    "latexmk",
    "librsvg2-bin",
    "poppler-utils",
)
INSTALL_COMMAND = "sudo apt-get install --no-install-recommends " + " ".join(DEBIAN_PACKAGES)
FONTS = tuple(DEFAULTS.values())  # main, sans, mono by default
INSTALL = f"install them (Debian: {INSTALL_COMMAND}; in polybook's repository, `make pdf`)"
TEX_SPECIAL = {
    **{c: "\\" + c for c in "&%$#_{}"},
    "\\": "\\textbackslash{}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
}
# Outputs in a smaller type on a white ground; the GPU badge and provenance as short notes.
# Citations (sphinxcontrib-bibtex's \hyperlink in a \DUrole) and references (\hyperref) may
# be in a caption or a title, which LaTeX writes to the contents, the list of figures and
# the labels' names: robust commands are written as they are, and the PDF's bookmarks
# take their text.
PREAMBLE = r"""
\MakeRobust\hyperlink
\MakeRobust\hyperref
\MakeRobust\DUrole
\makeatletter
\AtBeginDocument{\pdfstringdefDisableCommands{\let\hyperlink\@secondoftwo
  \def\DUrole#1#2{#2}}}
\makeatother
\newenvironment{sphinxclasspb-output}{\fvset{fontsize=\footnotesize}%
  \sphinxsetup{VerbatimColor={rgb}{1,1,1},VerbatimBorderColor={rgb}{0.8,0.8,0.8}}}{}
\newenvironment{sphinxclasspb-badge}{\par\smallskip\noindent\small\sffamily
  \textbf{Note:}\enspace}{\par\smallskip}
\newenvironment{sphinxclasspb-provenance}{\par\noindent\small\sffamily\itshape
  \textbf{Note:}\enspace}{\par}
"""


def missing_tools() -> list[str]:
    """The programs a PDF needs that this machine lacks."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


@dataclass(frozen=True)
class LatexJob:
    """Where one framework's PDF is made."""

    book: Book
    framework: str
    # The book's libraries, which autodoc imports (see polybook.render.autodoc).
    libraries: Mapping[str, Sequence[SavedBlock]] = field(default_factory=dict, compare=False)

    @property
    def work(self) -> Path:
        return latex_dir(self.book.layout, self.framework)

    @property
    def srcdir(self) -> Path:
        return self.work / "src"

    @property
    def outdir(self) -> Path:
        return self.work / "tex"

    @property
    def tex(self) -> Path:
        return self.outdir / f"{self.book.project.name}-{self.framework}.tex"


@dataclass
class LatexResult:
    """What one framework's run gave: its diagnostics, and the PDF when it was written."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    pdf: Path | None = None


def escape(text: str) -> str:
    """``text`` as LaTeX typesets it literally (a title, an author)."""
    return "".join(TEX_SPECIAL.get(char, char) for char in text)


def _font_commands(fonts: Fonts) -> str:
    """``\\setmainfont`` and the like; a font left "" keeps LaTeX's own."""
    commands = ""
    for command, font, options in (
        ("setmainfont", fonts.main, ""),
        ("setsansfont", fonts.sans, ""),
        ("setmonofont", fonts.mono, "[Scale=MatchLowercase]"),
    ):
        name = "".join(c for c in font if c not in "{}\\%#")
        if name:
            commands += f"\\{command}{{{name}}}{options}\n"
    return commands


def latex_elements(
    book: Book, fonts: Fonts, framework: str, cjk: CjkSettings | None = None
) -> dict[str, str]:
    """The LaTeX settings of the PDF: fonts, wrapping code, notes, the title page."""
    display = escape(book.framework(framework).display_name)
    # Under the release where there is one: a line break that ends no line is an error.
    info = f"\\\\[1ex]{display}" if book.project.release.strip() else display
    return {
        "fontpkg": _font_commands(fonts) + (cjk.commands if cjk else ""),
        "sphinxsetup": "verbatimforcewraps=true, verbatimmaxoverfull=0",
        "preamble": PREAMBLE + f"\\setreleaseinfo{{{info}}}\n",
        "extraclassoptions": "openany,oneside",
        "printindex": "",
        "fncychap": "",  # chapters head "Chapter 1", then the title
    } | (cjk.elements if cjk else {})


def latex_config(
    job: LatexJob,
    build: BuildSection,
    pdf: PdfSection,
    logo: str,
    fonts: Fonts | None = None,
    cjk: CjkSettings | None = None,
) -> dict[str, Any]:
    """Sphinx's settings for ``job``: the render core's and the LaTeX ones."""
    book = job.book
    settings = core_config(book, build, job.libraries)
    settings |= {
        "extensions": [*settings["extensions"], "polybook.pdf.sphinx_latex"],
        "latex_engine": "xelatex",
        "latex_documents": [
            [
                "index",
                job.tex.name,
                escape(book.project.title),
                escape(book.project.author),
                "manual",
            ]
        ],
        "latex_elements": latex_elements(book, fonts or DEFAULT_FONTS, job.framework, cjk),
        "latex_logo": logo or None,
        "latex_use_xindy": False,
        "latex_domain_indices": False,
        "suppress_warnings": [*settings["suppress_warnings"], "latex.toctree"],
        "pb_inputs": str(sphinx_inputs(book.layout, job.framework)),
    }
    return settings


def _logo(pdf: PdfSection, job: LatexJob) -> tuple[str, list[Diagnostic]]:
    """The title page's logo as LaTeX takes it (an SVG converted to PDF), or ""."""
    if not pdf.latex_logo:
        return "", []
    source = Path(pdf.latex_logo)
    if not source.is_file():
        where = key_location(job.book.root, "pdf", "latex_logo", job.framework)
        return "", [Diagnostic(where, f"[pdf] latex_logo: no such file: {source}", "config")]
    if source.suffix.lower() != ".svg":
        return str(source), []
    target = job.work / "logo.pdf"
    target.parent.mkdir(parents=True, exist_ok=True)
    failed = svg_to_pdf(source, target)
    if failed:
        where = key_location(job.book.root, "pdf", "latex_logo", job.framework)
        return "", [Diagnostic(where, f"[pdf] latex_logo: {failed}", "config")]
    return str(target), []


def svg_to_pdf(source: Path, target: Path) -> str:
    """Convert with ``rsvg-convert`` unless ``target`` is newer; the error, or ""."""
    if target.is_file() and target.stat().st_mtime_ns >= source.stat().st_mtime_ns:
        return ""
    done = subprocess.run(
        ["rsvg-convert", "--format=pdf", "--output", str(target), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    return f"rsvg-convert cannot convert {source}: {done.stderr.strip()}" if done.returncode else ""


def write_job_sources(job: LatexJob, resources: Sequence[str], pages: list[Page]) -> None:
    """The pages, their cell data and outputs, the resources (``[build] resources``) and the
    BibTeX file."""
    write_sources(job.book, resources, pages, job.srcdir)
    write_atomic(job.srcdir / INDEX_FILE, "{}")  # no API pages in the PDF
    bib = job.book.bibliography
    if bib:
        write_atomic(job.srcdir / BIBFILE, bib.read_bytes())


# TeX reads and writes only inside the run's folder (no absolute paths, no ``..``, no dot
# files: a ``raw:: latex`` block cannot ``\input`` a host file) and runs no program.
PARANOID = {"openin_any": "p", "openout_any": "p", "shell_escape": "f"}


def _latexmk(job: LatexJob) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **PARANOID,
        "max_print_line": "10000",
        "error_line": "254",
        "half_error_line": "238",
    }
    options = ["-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]
    guarded = [sys.executable, "-m", "polybook.lifeline"]  # latexmk and xelatex end with us
    return subprocess.run(
        [*guarded, "latexmk", "-xelatex", *options, job.tex.name],
        cwd=job.outdir,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )


def run_job(job: LatexJob, build: BuildSection, pdf: PdfSection) -> LatexResult:
    """Sphinx, then LaTeX, for one framework whose sources are written."""
    result = LatexResult()
    logo, result.diagnostics = _logo(pdf, job)
    installed = installed_fonts()
    fonts = pdf_fonts(job.book, pdf, job.framework, installed)
    xecjk = uses_xecjk(job.book.project.lang) and has_tex_file("xeCJK.sty")
    cjk = cjk_settings(job.book, job.framework, installed, xecjk)
    result.diagnostics += [*fonts.diagnostics, *cjk.diagnostics]
    latex = latex_config(job, build, pdf, logo, fonts, cjk)
    settings = job_settings(job.work, "latex", latex, tool_digest(PDF_CODE), out="tex")
    crash, fresh = run_job_sphinx(job.work, settings, "Sphinx failed to write the LaTeX")
    result.diagnostics += job_warnings(job.work, settings, fresh, job.framework)
    if crash:
        if crash != REPORTED_FAILURE:  # else its located error is among the warnings
            where = Location("sphinx", 0, job.framework)
            result.diagnostics.append(Diagnostic(where, crash, "pdf", "error"))
        return result
    done = _latexmk(job)
    log_file = job.tex.with_suffix(".log")
    log = log_file.read_text(encoding="utf-8", errors="replace") if log_file.is_file() else ""
    built = job.tex.with_suffix(".pdf")
    if done.returncode != 0 or not built.is_file():
        fallback = "\n".join((done.stdout + done.stderr).strip().splitlines()[-CRASH_LINES:])
        result.diagnostics.append(latex_log.latex_diagnostic(log, job.tex, job.framework, fallback))
        return result
    result.diagnostics += latex_log.missing_glyphs(log, job.tex, job.framework)
    result.pdf = pdf_file(job.book.layout, job.framework)
    write_atomic(result.pdf, built.read_bytes())
    return result
