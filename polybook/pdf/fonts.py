"""The PDF's fonts, checked before LaTeX runs: a ``[pdf]`` font this machine lacks is a
warning at its ``config.ini`` line, naming the Debian package that has it, and the PDF is
made with the default font instead (xelatex would stop at the preamble).

xelatex finds fonts by name through fontconfig; ``fc-list`` lists the same names. A name
that is a font file (``Inconsolata.otf``) is looked up by TeX itself and not checked.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Collection
from dataclasses import dataclass

from polybook.config import Book
from polybook.config.ini_text import key_location
from polybook.config.schema import PdfSection
from polybook.diagnostics import Diagnostic, Location

DEFAULTS = {"main_font": "FreeSerif", "sans_font": "FreeSans", "mono_font": "DejaVu Sans Mono"}
FONT_FILES = (".otf", ".ttf", ".ttc", ".pfb")
# Where a font comes from on Debian: the package, or what to use where Debian has none.
# Keys are the start of the name (``Source Han Sans SC Medium`` is ``Source Han Sans``).
DEBIAN_FONTS: dict[str, str] = {
    "FreeSerif": "fonts-freefont-otf",
    "FreeSans": "fonts-freefont-otf",
    "FreeMono": "fonts-freefont-otf",
    "DejaVu": "fonts-dejavu-core",
    "Inconsolata": "fonts-inconsolata",
    "TeX Gyre": "fonts-texgyre",
    "Latin Modern": "fonts-lmodern",
    "Liberation": "fonts-liberation2",
    "Fira Code": "fonts-firacode",
    "Hack": "fonts-hack",
    "JetBrains Mono": "fonts-jetbrains-mono",
    "Open Sans": "fonts-open-sans",
    "Lato": "fonts-lato",
    "Noto Sans CJK": "fonts-noto-cjk",
    "Noto Serif CJK": "fonts-noto-cjk",
    "Noto Sans Mono": "fonts-noto-mono",
    "Noto Serif": "fonts-noto-core",
    "Noto Sans": "fonts-noto-core",
    "WenQuanYi Zen Hei": "fonts-wqy-zenhei",
    "WenQuanYi Micro Hei": "fonts-wqy-microhei",
}
NOT_PACKAGED: dict[str, str] = {
    "Source Serif": "Adobe's Source Serif has no Debian package: install its OpenType files"
    " (e.g. into ~/.fonts) or name an installed font",
    "Source Sans": "Adobe's Source Sans has no Debian package: install its OpenType files"
    " (e.g. into ~/.fonts) or name an installed font",
    "Source Code Pro": "Adobe's Source Code Pro has no Debian package: install its OpenType"
    " files or name an installed font, e.g. `Inconsolata` (fonts-inconsolata)",
    "Source Han Serif": "Source Han Serif is packaged by Debian under Google's name:"
    " `Noto Serif CJK SC` (and TC, JP, KR), in fonts-noto-cjk",
    "Source Han Sans": "Source Han Sans is packaged by Debian under Google's name:"
    " `Noto Sans CJK SC` (and TC, JP, KR), in fonts-noto-cjk",
}


def _normal(name: str) -> str:
    """A font name as fontconfig compares them: case and blanks ignored."""
    return "".join(name.split()).casefold()


def installed_fonts() -> frozenset[str] | None:
    """The names (family, full and PostScript names) of the fonts fontconfig knows, or None
    when ``fc-list`` is not there to ask."""
    if shutil.which("fc-list") is None:
        return None
    listed = subprocess.run(
        ["fc-list", "--format", "%{family}\n%{fullname}\n%{postscriptname}\n"],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    if listed.returncode != 0:
        return None
    return frozenset(
        _normal(name) for line in listed.stdout.splitlines() for name in line.split(",") if name
    )


def where_to_get(font: str) -> str:
    """How to install ``font`` on Debian, or what to use instead; "" when not known."""
    for start, package in DEBIAN_FONTS.items():
        if _normal(font).startswith(_normal(start)):
            return f"Debian's {package} has it (`apt-get install {package}`)"
    for start, advice in NOT_PACKAGED.items():
        if _normal(font).startswith(_normal(start)):
            return advice
    return ""


def is_installed(font: str, installed: Collection[str]) -> bool:
    if font.lower().endswith(FONT_FILES) or "/" in font or font.startswith("["):
        return True  # a file, which TeX finds itself
    return _normal(font) in installed


@dataclass(frozen=True)
class Fonts:
    """The fonts the PDF is set in ("" leaves LaTeX's own, Latin Modern), and the warnings
    about those that were configured but are not installed."""

    main: str
    sans: str
    mono: str
    diagnostics: tuple[Diagnostic, ...] = ()


DEFAULT_FONTS = Fonts(DEFAULTS["main_font"], DEFAULTS["sans_font"], DEFAULTS["mono_font"])


def pdf_fonts(
    book: Book, pdf: PdfSection, framework: str, installed: Collection[str] | None
) -> Fonts:
    """The ``[pdf]`` fonts, each replaced by its default where this machine lacks it;
    ``installed``: the names fontconfig lists (None: not known, nothing is checked)."""
    chosen: dict[str, str] = {}
    found: list[Diagnostic] = []
    keys = {"main_font": pdf.main_font, "sans_font": pdf.sans_font, "mono_font": pdf.mono_font}
    for key, default in DEFAULTS.items():
        configured = keys[key].strip()
        font = configured or default
        if installed is None or is_installed(font, installed):
            chosen[key] = font
            continue
        fallback = default if configured and is_installed(default, installed) else ""
        chosen[key] = fallback
        instead = fallback or "LaTeX's default (Latin Modern)"
        hint = where_to_get(font)
        message = (
            f"[pdf] {key}: the font “{font}” is not installed (fontconfig does not list it):"
            f" the PDF is set in {instead} instead{'; ' + hint if hint else ''}"
        )
        where = key_location(book.root, "pdf", key, framework) if configured else Location("pdf")
        found.append(Diagnostic(where, message, "pdf.font"))
    return Fonts(chosen["main_font"], chosen["sans_font"], chosen["mono_font"], tuple(found))
