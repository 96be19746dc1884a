"""The students' notebooks as an output: ``_build/notebooks``. Their install cells spell the
pins of every device's requirement set, so both decide that they are up to date."""

from __future__ import annotations

import logging
from pathlib import Path

from polybook.config import BookConfig
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.notebooks.library_source import InstallSettings
from polybook.notebooks.places import NAME, notebooks_dir
from polybook.notebooks.sections import NotebookSections
from polybook.notebooks.variants import Repositories
from polybook.output import Made, Output

logger = logging.getLogger("polybook")


def install_settings(config: BookConfig) -> InstallSettings:
    """The sections that say where the students' notebooks install the library from."""
    repos = Repositories(config.colab, config.sagemaker)
    return InstallSettings(config.library, config.project, config.html, repos)


def notebook_sections(config: BookConfig) -> NotebookSections:
    """What the students' notebooks read of ``config``."""
    return NotebookSections(install_settings(config), config.build.resources)


def _writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [notebooks_dir(layout)]


def _build(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    from polybook.notebooks.stage import build_notebooks

    written = build_notebooks(made.executed, config.book, notebook_sections(config), reporter)
    logger.info(
        "notebooks written to %s (%d, %d changed)",
        written.folder,
        written.notebooks,
        written.changed,
    )
    return True


OUTPUT = Output(
    NAME,
    "students' notebooks for Jupyter, Colab and SageMaker, and a zip per framework",
    _writes,
    build=_build,
    reads=lambda config: config.layout.compat_records,
    all_requirement_sets=True,
    per_framework=True,
)
