"""What every stage knows of the book it builds: :class:`Book`.

A stage takes the ``Book`` and the config sections it reads (``build_pdf(executed, book,
config.pdf, …)``), not the whole :class:`~polybook.config.BookConfig`: the ``Book`` says where
the book is, where its build writes, its tabs and their frameworks and libraries, and what it
may read; each section says how one stage does its job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from polybook import frameworks
from polybook.config.declarations import SHIPPED
from polybook.config.schema import LibraryTarget, ProjectSection
from polybook.confine import Confinement
from polybook.frameworks import Framework
from polybook.layout import EnvsFolder, Layout


@dataclass(frozen=True)
class Book:
    """One book as its stages see it; :attr:`BookConfig.book` makes it."""

    root: Path
    project: ProjectSection
    tabs: tuple[str, ...]
    frameworks: Mapping[str, Framework]
    libraries: Mapping[str, LibraryTarget]
    layout: Layout
    envs: EnvsFolder
    confinement: Confinement
    jobs: int  # notebooks (and PDFs, epubs) made at once: ``[build] jobs``, else the CPUs
    runs_book_code: bool  # see BookConfig.runs_book_code

    @property
    def bibliography(self) -> Path | None:
        """The book's BibTeX file (``[project] bibfile``), when it names one that exists (a
        missing one is a warning at its key's line when the book is opened)."""
        path = Path(self.project.bibfile) if self.project.bibfile else None
        return path if path is not None and path.is_file() else None

    @property
    def default_tab(self) -> str:
        return self.tabs[0]

    def framework(self, name: str) -> Framework:
        """The framework of tab ``name``: as declared, else named after the tab."""
        return frameworks.lookup(self.frameworks, name)

    def library_for(self, framework: str) -> LibraryTarget:
        """The library target of ``framework``; d2lbook's defaults when not configured."""
        if framework in self.libraries:
            return self.libraries[framework]
        return default_library(framework, self.framework(framework).module)


def default_library(framework: str, lib_name: str = "") -> LibraryTarget:
    """``d2l/<lib_name>.py``, the framework's own module name unless ``lib_name`` is given."""
    lib_name = lib_name or frameworks.lookup(SHIPPED, framework).module
    return LibraryTarget(framework, lib_name, f"d2l/{lib_name}.py")
