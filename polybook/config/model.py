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
from polybook.confine import Confinement
from polybook.diagnostics import Diagnostic
from polybook.frameworks import Framework
from polybook.layout import EnvsFolder, Layout, envs_folder


@dataclass(frozen=True)
class LibraryAliases:
    """d2lbook's alias keys of ``[library-<tab>]``, as written (see
    :mod:`polybook.library.aliases`), with the config line of each key."""

    module: str = ""  # d2lbook's ``lib_name``: what simple aliases point into (np, torch)
    simple: str = ""
    fluent: str = ""
    verbatim: str = ""  # ``alias``: lines of code
    reverse: str = ""  # ``reverse_alias``: ``pattern -> replacement`` regular expressions
    lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class LibraryTarget:
    """Where one framework's ``#@save`` code is written, and the module's name."""

    framework: str
    lib_file: str  # relative to the book root
    lib_name: str  # ``from d2l import <lib_name> as d2l``
    aliases: LibraryAliases = LibraryAliases()


@dataclass(frozen=True)
class EnvSettings:
    """``[env-<tab>]``: an existing Python that runs a framework instead of polybook's venv."""

    framework: str
    python: str = ""  # absolute, symlinks kept (a venv's python is a link); "": polybook's venv
    install_kernel: bool = False
    line: int = 0  # of ``python =`` in config.ini, for messages


@dataclass(frozen=True)
class Edition:
    """``[edition-<name>]``: another edition of the book, a book of its own."""

    name: str
    root: Path  # absolute
    lang: str = ""  # "": the edition's own [project] lang
    url: str = ""  # "": its built site beside this one's
    source: bool = False  # the edition this book is translated from
    line: int = 0  # of the section in config.ini, for messages


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
    allowed_paths: tuple[str, ...] = ()  # folders outside the root the book may read from
    tabs: tuple[str, ...] = ("pytorch",)
    eval_notebook: bool = True
    strict: bool = False
    cell_timeout: int = 1200
    fork_kernels: bool = True
    output_limit: int = 1_000_000  # characters of text shown per cell; 0: no limit
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
    package: str = ""  # [library]: the distribution name; "": the folder's
    install: str = ""  # [library]: "": from the site, the repository or the index
    github_repo: tuple[str, ...] = ()  # [colab]
    branch: str = "main"  # [colab]
    kernel: tuple[str, ...] = ("python3",)  # [sagemaker]
    sagemaker_repo: tuple[str, ...] = ()  # [sagemaker] github_repo
    sagemaker_branch: str = "main"  # [sagemaker] branch
    favicon: str = ""  # [html]
    html_logo: str = ""  # [html]
    base_url: str = ""  # [html]
    serve_port: int = 0  # [html]
    figure_format: str = "svg"  # [html]
    bibfile: str = ""  # [pdf]
    latex_logo: str = ""  # [pdf]
    main_font: str = ""  # [pdf]
    sans_font: str = ""  # [pdf]
    mono_font: str = ""  # [pdf]
    slides_top_left: str = ""  # [slides] top_left
    slides_top_right: str = ""  # [slides] top_right
    slides_repo: tuple[str, ...] = ()  # [slides] github_repo
    requirements: tuple[str, ...] = ()  # [build]: FILE or tab:FILE, relative to the root
    drift_rtol: float = 1e-5  # [drift] rtol
    drift_atol: float = 1e-8  # [drift] atol
    drift_image_threshold: float = 0.001  # [drift] image_threshold
    drift_volatile: tuple[str, ...] = ("addresses", "timings", "progress")  # [drift] volatile
    drift_ignore: tuple[str, ...] = ()  # [drift] ignore
    libraries: Mapping[str, LibraryTarget] = field(default_factory=lambda: MappingProxyType({}))
    env_settings: Mapping[str, EnvSettings] = field(default_factory=lambda: MappingProxyType({}))
    editions: tuple[Edition, ...] = ()  # [edition-<name>] sections
    # The declared frameworks: polybook's four with the book's [framework-<name>] over them.
    frameworks: Mapping[str, Framework] = field(default_factory=lambda: frameworks.REGISTRY)
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
        return self.trusted or (self.eval_notebook and self.executor != "none")

    @property
    def default_tab(self) -> str:
        return self.tabs[0]

    @property
    def layout(self) -> Layout:
        """Where this book's build reads and writes each thing."""
        return Layout(self.root, self.name, self.side)

    @property
    def envs(self) -> EnvsFolder:
        """Where this book's framework environments are."""
        return envs_folder(self.root, self.envs_dir)

    @property
    def confinement(self) -> Confinement:
        """The folders the book may read files from (see :mod:`polybook.confine`)."""
        return Confinement.of(self.root, self.allowed_paths)

    @property
    def build_dir(self) -> Path:
        return self.layout.build

    @property
    def effective_jobs(self) -> int:
        return self.jobs or (os.cpu_count() or 1)

    def library_for(self, framework: str) -> LibraryTarget:
        """The library target of ``framework``; d2lbook's defaults when not configured."""
        if framework in self.libraries:
            return self.libraries[framework]
        return default_library(framework, self.framework(framework).lib_name)

    def env_for(self, framework: str) -> EnvSettings:
        """``[env-<framework>]``; with no such section, polybook's own venv."""
        return self.env_settings.get(framework) or EnvSettings(framework)

    def framework(self, name: str) -> Framework:
        """The framework of tab ``name``: as declared, else named after the tab."""
        return frameworks.lookup(self.frameworks, name)

    def extra_requirements(self, framework: str) -> tuple[Path, ...]:
        """The book's requirement files for ``framework``'s environment, in config order."""
        found = []
        for word in self.requirements:
            tab, _, name = word.rpartition(":")
            if tab in ("", framework):
                found.append(self.root / name)
        return tuple(found)


def default_library(framework: str, lib_name: str = "") -> LibraryTarget:
    """``d2l/<lib_name>.py``, the framework's own module name unless ``lib_name`` is given."""
    lib_name = lib_name or frameworks.lookup(frameworks.REGISTRY, framework).lib_name
    return LibraryTarget(framework, f"d2l/{lib_name}.py", lib_name)
