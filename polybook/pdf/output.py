"""The PDFs as an output: one per framework, ``_build/pdf``."""

from __future__ import annotations

import logging
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.fsutil import write_atomic
from polybook.layout import Layout
from polybook.output import Made, Output, SiteLink
from polybook.pdf.places import NAME, pdf_file, sphinx_inputs

logger = logging.getLogger("polybook")


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [pdf_file(layout, fw) for fw in tabs]


def _built(layout: Layout, tabs: tuple[str, ...]) -> dict[str, dict[str, Path]]:
    """The finished PDFs, which the site holds in ``_pdf/`` and links from every page."""
    return {fw: {"": path} for fw, path in layout.built_books(NAME, tabs, ".pdf").items()}


def _sphinx_reads(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [sphinx_inputs(layout, fw) for fw in tabs]


def _machine_fonts(config: BookConfig) -> list[Path]:
    """A file that says which of the fonts the PDFs may use this machine has (and whether
    TeX has xeCJK, for a Chinese book): a build after one is installed is not a no-op."""
    from polybook.pdf.cjk import CJK_FONTS, has_tex_file, uses_xecjk
    from polybook.pdf.fonts import DEFAULTS, installed_fonts, is_installed

    pdf = config.pdf
    names = [n for n in (pdf.main_font, pdf.sans_font, pdf.mono_font) if n]
    names += DEFAULTS.values()
    chinese = uses_xecjk(config.project.lang)
    if chinese:
        names += [font for fonts in CJK_FONTS.values() for font in fonts]
    installed = installed_fonts()
    lines = [f"{name}: {installed is None or is_installed(name, installed)}" for name in names]
    if chinese:
        lines.append(f"xeCJK.sty: {has_tex_file('xeCJK.sty')}")
    record = config.layout.build / "latex" / "fonts.txt"
    write_atomic(record, "\n".join(lines) + "\n")
    return [record]


def _build(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    from polybook.pdf.stage import build_pdf

    for path in build_pdf(made.executed, config.book, config.build, config.pdf, reporter):
        logger.info("wrote %s", path.relative_to(config.root))
    return True


HELP = "a PDF per framework, `_build/pdf/<name>-<framework>.pdf` ([docs/pdf.md](docs/pdf.md))"
OUTPUT = Output(
    NAME,
    HELP,
    _writes,
    build=_build,
    reads=_machine_fonts,
    sphinx_reads=_sphinx_reads,
    per_framework=True,
    site=SiteLink("_pdf", "PDF", _built),
)
