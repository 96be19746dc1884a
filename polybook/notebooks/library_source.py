"""Where the students' notebooks install the book's library from, and whether that can work.

``[library] install`` when the author sets it; else the wheel the site publishes
(``[html] base_url`` + ``_dist/<wheel>``); else the wheel beside the notebooks in the
repository that publishes them (``[sagemaker] github_repo`` for SageMaker's, else
``[colab] github_repo``); else, with a warning that names the key to set,
``<package>==<release>`` from the package index. A requirement of the index is checked
there (:mod:`polybook.library.index`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from polybook.config.schema import HtmlSection, LibrarySection, ProjectSection
from polybook.layout import DIST_LINK
from polybook.library.index import OK, check_library, index_requirement
from polybook.library.wheel import distribution, wheel_name
from polybook.notebooks.variants import REGISTRY, Repositories, Variant

CONFIGURED, SITE, REPOSITORY, INDEX = "configured", "site", "repository", "index"
FIX = "set [html] base_url to the site's address (or [colab] github_repo, or [library] install)"


@dataclass(frozen=True)
class InstallSettings:
    """The sections that say where the notebooks install the library from."""

    library: LibrarySection  # its distribution, ``install``
    project: ProjectSection  # ``release``
    html: HtmlSection  # ``base_url``
    repos: Repositories  # the platforms' repositories


@dataclass(frozen=True)
class LibrarySource:
    """What a notebook's first cell installs for the library, and where that comes from."""

    requirement: str
    origin: str  # CONFIGURED, SITE, REPOSITORY or INDEX


@dataclass(frozen=True)
class InstallProblem:
    """What a build says of the first cells: ``level`` is ``error`` where the author's own
    ``[library] install`` is known not to install this book's library, ``warning`` where
    the default cannot install the wheel the book publishes, ``note`` where the index could
    not be asked about the author's requirement."""

    message: str
    level: str = "warning"
    fix: str = ""  # what to set
    index: str = ""  # what the package index said
    requirement: str = ""  # the first cells' requirement it is about

    @property
    def said(self) -> str:
        """The message and what the index said."""
        return f"{self.message}; {self.index}" if self.index else self.message

    @property
    def text(self) -> str:
        """The whole: the message, the fix, what the index said."""
        told = f"{self.message}: {self.fix}" if self.fix else self.message
        return f"{told}. {self.index[:1].upper()}{self.index[1:]}" if self.index else told


def library_source(
    settings: InstallSettings, package: str, variant: Variant, framework: str
) -> LibrarySource:
    """Where ``variant``'s notebooks of ``framework`` install the library (``package``:
    its import package, ``d2l``) from. Without a repository of its own, a platform's
    notebooks install the wheel beside Colab's."""
    library, release = settings.library, settings.project.release
    dist = distribution(library, package)
    if library.install:
        text = library.install.replace("{package}", dist)
        text = text.replace("=={release}", "") if not release else text
        return LibrarySource(text.replace("{release}", release), CONFIGURED)
    if release:
        wheel = f"{DIST_LINK}/{wheel_name(dist, release)}"
        if settings.html.base_url:
            return LibrarySource(settings.html.base_url + wheel, SITE)
        for holder in (variant, REGISTRY["colab"]):  # its own repository, else Colab's
            if url := holder.repo_file(settings.repos, framework, wheel):
                return LibrarySource(url, REPOSITORY)
    pinned = f"{dist}=={release}" if release else dist
    return LibrarySource(pinned, INDEX)


def sources(settings: InstallSettings, package: str, tabs: Iterable[str]) -> list[LibrarySource]:
    """What the first cells of the platforms' notebooks of ``tabs`` install, each once."""
    found: list[LibrarySource] = []
    for variant in REGISTRY.values():
        for fw in tabs:
            source = library_source(settings, package, variant, fw)
            if variant.install_cell and source not in found:
                found.append(source)
    return found


def install_problems(
    settings: InstallSettings, package: str, modules: Mapping[str, str], tabs: Iterable[str]
) -> list[InstallProblem]:
    """What is wrong with the first cells of the notebooks of ``tabs``: no address to
    install the published wheel from, or a requirement of the index that is missing there
    or another project's (``modules``: the library's module files' sources, by name). The
    index is asked once per requirement."""
    problems: list[InstallProblem] = []
    for source in sources(settings, package, tabs):
        requirement = index_requirement(source.requirement)
        found = check_library(requirement, package, modules) if requirement else None
        if source.origin == INDEX and not (found is not None and found.state == OK):
            fix = FIX if settings.project.release else "set [project] release, the wheel's version"
            message = (
                f"the students' notebooks install the library as `{source.requirement}`, from"
                f" the package index, not the wheel this book publishes"
            )
            index = found.detail if found else ""
            problems.append(
                InstallProblem(message, fix=fix, index=index, requirement=source.requirement)
            )
        elif source.origin != INDEX and found is not None and found.state != OK:
            message = f"[library] install = {source.requirement}: {found.detail}"
            level = "error" if found.fails else "note"
            problems.append(InstallProblem(message, level, requirement=source.requirement))
    return problems
