"""The validated configuration the rest of polybook reads: :class:`BookConfig`.

Its fields are filled from :data:`polybook.config.schema.KEYS` (a field per key, same name);
the defaults here are the schema's, which a test checks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from polybook import frameworks
from polybook.diagnostics import Diagnostic


@dataclass(frozen=True)
class LibraryTarget:
    """Where one framework's ``#@save`` code is written, and the module's name."""

    framework: str
    lib_file: str  # relative to the book root
    lib_name: str  # ``from d2l import <lib_name> as d2l``


@dataclass(frozen=True)
class BookConfig:
    """Validated configuration of one book; derive variants with ``dataclasses.replace``."""

    root: Path
    name: str = "book"
    title: str = "Book"
    author: str = ""
    copyright: str = ""
    release: str = ""
    lang: str = "en"
    site_url: str = ""
    notebooks: tuple[str, ...] = ("*.md", "*/*.md")
    exclusions: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    tabs: tuple[str, ...] = ("pytorch",)
    eval_notebook: bool = True
    strict: bool = False
    cell_timeout: int = 1200
    jobs: int = 0
    device: str = "auto"
    envs_dir: str = ""
    gpu_share: int = 1
    framework_specific: tuple[str, ...] = ()
    suppress_warnings: tuple[str, ...] = ()
    sphinx_extensions: tuple[str, ...] = ()
    executor: str = "local"
    dask_scheduler: str = ""
    cache: str = ""
    install: str = "{package}=={release}"
    github_repo: tuple[str, ...] = ()  # [colab]
    branch: str = "main"  # [colab]
    kernel: tuple[str, ...] = ("python3",)  # [sagemaker]
    sagemaker_repo: tuple[str, ...] = ()  # [sagemaker] github_repo
    sagemaker_branch: str = "main"  # [sagemaker] branch
    favicon: str = ""  # [html]
    html_logo: str = ""  # [html]
    serve_port: int = 0  # [html]
    bibfile: str = ""  # [pdf]
    libraries: Mapping[str, LibraryTarget] = field(default_factory=lambda: MappingProxyType({}))
    # Warnings found reading config.ini: ignored and unknown keys and sections, and the like.
    ignored: tuple[Diagnostic, ...] = ()

    @property
    def default_tab(self) -> str:
        return self.tabs[0]

    @property
    def build_dir(self) -> Path:
        return self.root / "_build"

    @property
    def effective_jobs(self) -> int:
        return self.jobs or (os.cpu_count() or 1)

    def library_for(self, framework: str) -> LibraryTarget:
        """The library target of ``framework``; d2lbook's defaults when not configured."""
        if framework in self.libraries:
            return self.libraries[framework]
        return default_library(framework)


def default_library(framework: str, lib_name: str = "") -> LibraryTarget:
    """``d2l/<lib_name>.py``, the framework's own module name unless ``lib_name`` is given."""
    lib_name = lib_name or frameworks.get(framework).lib_name
    return LibraryTarget(framework, f"d2l/{lib_name}.py", lib_name)
