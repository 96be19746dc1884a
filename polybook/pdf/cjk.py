"""Chinese books' PDFs: Sphinx sets a ``zh`` book with xeCJK, which is in Debian's
``texlive-lang-chinese``. It is looked for before LaTeX runs: without it, a warning at
``[project] lang`` names the package and the PDF is made anyway, without the Chinese
characters, instead of stopping at the preamble. The Chinese text is in Noto CJK (Debian's
``fonts-noto-cjk``) where it is installed, else in the Fandol fonts xeCJK comes with."""

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
# name of the Noto CJK design); without any, xeCJK's own Fandol fonts (which come with it).
CJK_FONTS = {
    "setCJKmainfont": ("Noto Serif CJK SC", "Source Han Serif SC"),
    "setCJKsansfont": ("Noto Sans CJK SC", "Source Han Sans SC"),
    "setCJKmonofont": ("Noto Sans Mono CJK SC", "Noto Sans CJK SC", "Source Han Sans SC"),
}
XECJK_PACKAGE = "texlive-lang-chinese"
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
    if not xecjk:
        where = key_location(book.root, "project", "lang", framework)
        message = (
            f"[project] lang = {book.project.lang}: the PDF's Chinese text needs xeCJK, which is"
            f" not installed (Debian's {XECJK_PACKAGE}): the PDF is made without it, and"
            " without the characters its fonts lack"
        )
        return CjkSettings(dict(WITHOUT_XECJK), "", (Diagnostic(where, message, "pdf.font"),))
    commands = ""
    for command, candidates in CJK_FONTS.items():
        found = next((f for f in candidates if is_installed(f, installed or ())), "")
        if found:
            commands += f"\\{command}{{{found}}}\n"
    return CjkSettings({}, commands)
