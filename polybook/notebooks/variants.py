"""The platforms a student notebook is written for, described as data in one registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polybook.config import Book
from polybook.config.schema import ColabSection, SagemakerSection, for_framework

GITHUB = "https://github.com"


@dataclass(frozen=True)
class Repositories:
    """The sections naming the repositories that publish the platforms' notebooks."""

    colab: ColabSection
    sagemaker: SagemakerSection


@dataclass(frozen=True)
class Variant:
    """How the notebooks of one platform differ from the executed ones."""

    name: str
    folder: str  # under _build/notebooks/<framework>/; "" for the plain notebooks
    platform: str  # as links name it (“Open in Colab”)
    install_cell: bool  # a first cell installs what the page needs
    gpu_note: str  # shown on notebooks that need a GPU
    colab_metadata: bool = False  # Colab's notebook name, and ``accelerator: GPU`` on GPU pages
    hide_as_form: bool = False  # Colab folds hidden code as a form (``cellView: form``)
    opens_at: str = ""  # the platform's URL that opens a notebook from GitHub
    # The config section naming the repository that publishes the notebooks, its branch
    # (and, for SageMaker, the kernel); "" for none.
    section: str = ""

    def _published(self, repos: Repositories) -> ColabSection | SagemakerSection | None:
        if self.section == "colab":
            return repos.colab
        return repos.sagemaker if self.section == "sagemaker" else None

    def _repos(self, repos: Repositories) -> tuple[str, ...]:
        published = self._published(repos)
        return published.github_repo if published else ()

    def _branch(self, repos: Repositories) -> str:
        published = self._published(repos)
        return published.branch if published else ""

    def kernelspec(self, book: Book, repos: Repositories, framework: str) -> dict[str, str]:
        name = "python3"
        published = self._published(repos)
        if isinstance(published, SagemakerSection):
            name = for_framework(published.kernel, framework, "python3")
        display = f"Python 3 ({book.framework(framework).display_name})"
        return {"name": name, "display_name": display, "language": "python"}

    def url(self, repos: Repositories, page: str, framework: str) -> str:
        """“Open in …” for the page's notebook, "" when no repository is configured.

        One repository holds ``_build/notebooks/``; ``framework repository`` pairs name one
        per framework, holding this platform's folder at its root (d2lbook's layout)."""
        names = self._repos(repos)
        repo = for_framework(names, framework) if names else ""
        if not repo:
            return ""
        notebook = page.removesuffix(".md") + ".ipynb"
        if len(names) == 1:
            notebook = f"{framework}/{self.folder}/{notebook}"
        return f"{self.opens_at}/{repo}/blob/{self._branch(repos)}/{notebook}"

    def repo_file(self, repos: Repositories, framework: str, path: str) -> str:
        """The address of ``path``, beside this platform's notebooks of ``framework``, in
        the repository that publishes them ("" when none is configured)."""
        names = self._repos(repos)
        repo = for_framework(names, framework) if names else ""
        if not repo:
            return ""
        inside = f"{framework}/{self.folder}/" if len(names) == 1 else ""
        return f"{GITHUB}/{repo}/raw/{self._branch(repos)}/{inside}{path}"

    def holds_wheel(self, repos: Repositories, framework: str) -> bool:
        """Whether this platform's folder is where a repository publishes the wheel."""
        return bool(self.repo_file(repos, framework, ""))

    def metadata(self, page: str, gpu: bool) -> dict[str, Any]:
        """Notebook metadata of this platform (beside ``kernelspec``)."""
        if not self.colab_metadata:
            return {}
        name = page.rsplit("/", 1)[-1].removesuffix(".md") + ".ipynb"
        data: dict[str, Any] = {"colab": {"name": name, "provenance": []}}
        if gpu:
            data["accelerator"] = "GPU"
        return data


REGISTRY: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "jupyter",
            "",
            "Jupyter",
            install_cell=False,
            gpu_note="This notebook needs a GPU: run it on a host that has one.",
        ),
        Variant(
            "colab",
            "colab",
            "Colab",
            install_cell=True,
            gpu_note="This notebook needs a GPU: in Colab, choose *Runtime › Change runtime"
            " type* and a GPU before running it.",
            colab_metadata=True,
            hide_as_form=True,
            opens_at="https://colab.research.google.com/github",
            section="colab",
        ),
        Variant(
            "sagemaker",
            "sagemaker",
            "SageMaker Studio Lab",
            install_cell=True,
            gpu_note="This notebook needs a GPU: run it on a GPU instance.",
            opens_at="https://studiolab.sagemaker.aws/import/github",
            section="sagemaker",
        ),
    )
}
