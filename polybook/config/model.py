"""The validated configuration the rest of polybook reads: :class:`BookConfig`, a field per
``config.ini`` section (``config.pdf.main_font``, ``config.drift.rtol``), each section the
dataclass that declares its keys (:mod:`polybook.config.schema`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

from polybook.config.book import Book, default_library
from polybook.config.declarations import SHIPPED
from polybook.config.executors import capabilities
from polybook.config.schema import (
    BuildSection,
    ColabSection,
    CompatSection,
    DriftSection,
    Edition,
    EnvSettings,
    HtmlSection,
    LibraryAliases,
    LibrarySection,
    LibraryTarget,
    PdfSection,
    ProjectSection,
    SagemakerSection,
    Section,
    SlidesSection,
)
from polybook.confine import Confinement
from polybook.diagnostics import Diagnostic
from polybook.frameworks import Framework
from polybook.layout import EnvsFolder, Layout, envs_folder

__all__ = [
    "Book",
    "BookConfig",
    "Edition",
    "EnvSettings",
    "LibraryAliases",
    "LibraryTarget",
    "default_library",
]


@dataclass(frozen=True)
class BookConfig:
    """Validated configuration of one book; derive variants with ``dataclasses.replace``."""

    root: Path
    project: ProjectSection = field(default_factory=ProjectSection)
    build: BuildSection = field(default_factory=BuildSection)
    library: LibrarySection = field(default_factory=LibrarySection)
    colab: ColabSection = field(default_factory=ColabSection)
    sagemaker: SagemakerSection = field(default_factory=SagemakerSection)
    html: HtmlSection = field(default_factory=HtmlSection)
    pdf: PdfSection = field(default_factory=PdfSection)
    slides: SlidesSection = field(default_factory=SlidesSection)
    drift: DriftSection = field(default_factory=DriftSection)
    compat: CompatSection = field(default_factory=CompatSection)
    libraries: Mapping[str, LibraryTarget] = field(default_factory=lambda: MappingProxyType({}))
    env_settings: Mapping[str, EnvSettings] = field(default_factory=lambda: MappingProxyType({}))
    # Each registered executor's section ([executor-<name>]), by executor; one missing is its
    # keys' defaults (``Registered.settings``).
    executor_settings: Mapping[str, Section] = field(default_factory=lambda: MappingProxyType({}))
    editions: tuple[Edition, ...] = ()  # [edition-<name>] sections
    # The declared frameworks: polybook's with the book's [framework-<name>] over them.
    frameworks: Mapping[str, Framework] = field(default_factory=lambda: SHIPPED)
    # Warnings found reading config.ini: ignored and unknown keys and sections, and the like.
    ignored: tuple[Diagnostic, ...] = ()
    # Not a key: a side build's name (``polybook upgrade``), whose outputs keep to their own
    # folder of _build/ and show no frozen outputs.
    side: str = ""
    # Not a key (a book cannot vouch for itself): ``--trust`` on the command line, which
    # lets a build that executes nothing load the book's own Sphinx extensions.
    trusted: bool = False

    @property
    def runs_book_code(self) -> bool:
        """Whether the build runs the book's code anyway (its notebooks are executed, or the
        command line said ``--trust``): only then may the Sphinx process import a module of
        the book (a ``sphinx_extensions`` one)."""
        runs = capabilities(self.build.executor).runs_code
        return self.trusted or (self.build.eval_notebook and runs)

    @cached_property
    def book(self) -> Book:
        """What every stage knows of this book; each stage reads its own sections besides."""
        return Book(
            root=self.root,
            project=self.project,
            tabs=self.build.tabs,
            frameworks=self.frameworks,
            libraries=self.libraries,
            layout=Layout(self.root, self.project.name, self.side),
            envs=envs_folder(self.root, self.build.envs_dir),
            confinement=Confinement.of(self.root, self.build.allowed_paths),
            jobs=self.build.jobs or (os.cpu_count() or 1),
            runs_book_code=self.runs_book_code,
        )

    @property
    def default_tab(self) -> str:
        return self.build.tabs[0]

    @property
    def layout(self) -> Layout:
        """Where this book's build reads and writes each thing."""
        return self.book.layout

    @property
    def envs(self) -> EnvsFolder:
        """Where this book's framework environments are."""
        return self.book.envs

    @property
    def confinement(self) -> Confinement:
        """The folders the book may read files from (see :mod:`polybook.confine`)."""
        return self.book.confinement

    @property
    def build_dir(self) -> Path:
        return self.layout.build

    @property
    def effective_jobs(self) -> int:
        return self.book.jobs

    def library_for(self, framework: str) -> LibraryTarget:
        """The library target of ``framework``; d2lbook's defaults when not configured."""
        return self.book.library_for(framework)

    def env_for(self, framework: str) -> EnvSettings:
        """``[env-<framework>]``; with no such section, polybook's own venv."""
        return self.env_settings.get(framework) or EnvSettings(framework)

    def framework(self, name: str) -> Framework:
        """The framework of tab ``name``: as declared, else named after the tab."""
        return self.book.framework(name)

    def extra_requirements(self, framework: str) -> tuple[Path, ...]:
        """The book's requirement files for ``framework``'s environment, in config order:
        for a tab no framework declares, those of every such tab (they share the default
        environment)."""
        shared = not self.framework(framework).declared
        tabs = {t for t in self.build.tabs if not self.framework(t).declared} if shared else set()
        found: list[Path] = []
        for word in self.build.requirements:
            tab, _, name = word.rpartition(":")
            if (tab in ("", framework) or tab in tabs) and self.root / name not in found:
                found.append(self.root / name)
        return tuple(found)
