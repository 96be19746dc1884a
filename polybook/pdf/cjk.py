"""Chinese books' PDFs: Sphinx sets a ``zh`` book with xeCJK, which needs Debian's
``texlive-lang-chinese`` and a Chinese font. Both are looked for before LaTeX runs; what is
missing is a warning at ``[project] lang`` naming the package, and the PDF is made anyway
(without the characters it lacks a font for) instead of stopping at the preamble."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Collection
from dataclasses import dataclass, field

from polybook.config import Book
from polybook.config.ini_text import key_location
from polybook.diagnostics import Diagnostic
from polybook.pdf.fonts import is_installed


@dataclass(frozen=True)
class CjkSettings:
    """Sphinx's LaTeX settings that replace its own (without xeCJK), the font commands,
    and the warnings about what this machine lacks."""

    elements: dict[str, str] = field(default_factory=dict)
    commands: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()


# Serif, sans and mono faces, the first installed of each list (Source Han is Adobe's
# name of the Noto CJK design; Fandol comes with texlive-lang-chinese).
CJK_FONTS = {
    "setCJKmainfont": ("Noto Serif CJK SC", "Source Han Serif SC", "FandolSong"),
    "setCJKsansfont": ("Noto Sans CJK SC", "Source Han Sans SC", "FandolHei"),
    "setCJKmonofont": ("Noto Sans Mono CJK SC", "Noto Sans CJK SC", "FandolHei"),
}
XECJK_PACKAGE = "texlive-lang-chinese"
FONT_PACKAGE = "fonts-noto-cjk"
# Sphinx's xelatex settings without xeCJK.
WITHOUT_XECJK = {
    "fontenc": "\\usepackage{fontspec}\n\\defaultfontfeatures[\\rmfamily,\\sffamily,\\ttfamily]{}",
    "fvset": "\\fvset{fontsize=auto}",
}


def uses_xecjk(lang: str) -> bool:
    """Whether Sphinx sets a book in ``lang`` with xeCJK (its ``zh`` settings)."""
    return lang.lower()[:2] == "zh"


def has_tex_file(name: str) -> bool:
    """Whether TeX finds ``name`` (``kpsewhich``); True when there is no kpsewhich to ask."""
    if shutil.which("kpsewhich") is None:
        return True
    found = subprocess.run(["kpsewhich", name], capture_output=True, text=True, check=False)
    return bool(found.stdout.strip())


def cjk_settings(
    book: Book, framework: str, installed: Collection[str] | None, xecjk: bool
) -> CjkSettings:
    """The LaTeX settings of a Chinese book's fonts (none for another book);
    ``installed``: fontconfig's font names; ``xecjk``: whether TeX has xeCJK."""
    if not uses_xecjk(book.project.lang):
        return CjkSettings()
    where = key_location(book.root, "project", "lang", framework)
    if not xecjk:
        message = (
            f"[project] lang = {book.project.lang}: the PDF's Chinese text needs xeCJK, which is"
            f" not installed (Debian's {XECJK_PACKAGE}): the PDF is made without it, and"
            " without the characters its fonts lack"
        )
        return CjkSettings(dict(WITHOUT_XECJK), "", (Diagnostic(where, message, "pdf.font"),))
    commands = ""
    for command, candidates in CJK_FONTS.items():
        found = next((f for f in candidates if installed is None or is_installed(f, installed)), "")
        if found:
            commands += f"\\{command}{{{found}}}\n"
    if commands:
        return CjkSettings({}, commands)
    message = (
        f"[project] lang = {book.project.lang}: no Chinese font is installed"
        f" ({', '.join(CJK_FONTS['setCJKmainfont'])}; Debian's {FONT_PACKAGE}): the PDF"
        " leaves its Chinese characters out"
    )
    return CjkSettings({}, "", (Diagnostic(where, message, "pdf.font"),))
