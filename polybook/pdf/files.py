"""Where the PDF stage writes, named without importing the stage (the site reads these)."""

from __future__ import annotations

from pathlib import Path

from polybook.config import BookConfig

PDF_DIR = "pdf"  # _build/pdf/<name>-<framework>.pdf
WORK_DIR = "latex"  # _build/latex/<framework>/: Sphinx's sources, doctrees and LaTeX run


def pdf_name(config: BookConfig, framework: str) -> str:
    return f"{config.name}-{framework}.pdf"


def pdf_path(config: BookConfig, framework: str) -> Path:
    """The finished PDF of ``framework``."""
    return config.build_dir / PDF_DIR / pdf_name(config, framework)


def built_pdfs(config: BookConfig, tabs: tuple[str, ...]) -> dict[str, Path]:
    """The frameworks of ``tabs`` that have a finished PDF, with its path."""
    found = {fw: pdf_path(config, fw) for fw in tabs}
    return {fw: path for fw, path in found.items() if path.is_file()}
