"""The platforms a student notebook is written for, described as data in one registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polybook.config import BookConfig
from polybook.config.schema import ColabSection, SagemakerSection, for_framework

GITHUB = "https://github.com"


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

    def _published(self, config: BookConfig) -> ColabSection | SagemakerSection | None:
        if self.section == "colab":
            return config.colab
        return config.sagemaker if self.section == "sagemaker" else None

    def _repos(self, config: BookConfig) -> tuple[str, ...]:
        published = self._published(config)
        return published.github_repo if published else ()

    def _branch(self, config: BookConfig) -> str:
        published = self._published(config)
        return published.branch if published else ""

    def kernelspec(self, config: BookConfig, framework: str) -> dict[str, str]:
        name = "python3"
        published = self._published(config)
        if isinstance(published, SagemakerSection):
            name = for_framework(published.kernel, framework, "python3")
        display = f"Python 3 ({config.framework(framework).display_name})"
        return {"name": name, "display_name": display, "language": "python"}

    def url(self, config: BookConfig, page: str, framework: str) -> str:
        """“Open in …” for the page's notebook, "" when no repository is configured.

        One repository holds ``_build/notebooks/``; ``framework repository`` pairs name one
        per framework, holding this platform's folder at its root (d2lbook's layout)."""
        repos = self._repos(config)
        repo = for_framework(repos, framework) if repos else ""
        if not repo:
            return ""
        notebook = page.removesuffix(".md") + ".ipynb"
        if len(repos) == 1:
            notebook = f"{framework}/{self.folder}/{notebook}"
        return f"{self.opens_at}/{repo}/blob/{self._branch(config)}/{notebook}"

    def repo_file(self, config: BookConfig, framework: str, path: str) -> str:
        """The address of ``path``, beside this platform's notebooks of ``framework``, in
        the repository that publishes them ("" when none is configured)."""
        repos = self._repos(config)
        repo = for_framework(repos, framework) if repos else ""
        if not repo:
            return ""
        inside = f"{framework}/{self.folder}/" if len(repos) == 1 else ""
        return f"{GITHUB}/{repo}/raw/{self._branch(config)}/{inside}{path}"

    def holds_wheel(self, config: BookConfig, framework: str) -> bool:
        """Whether this platform's folder is where a repository publishes the wheel."""
        return bool(self.repo_file(config, framework, ""))

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
