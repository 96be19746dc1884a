"""``[project]`` and ``[build]``: the book, its pages and how it is built; each key declared
once, as a field of its section's dataclass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from polybook.config.schema.key import key


@dataclass(frozen=True)
class ProjectSection:
    """``[project]``: what the book is called and by whom."""

    SECTION: ClassVar[str] = "project"

    name: str = key(
        "str", "book", "the book's name, used in the names of output files", read_by=("lib",)
    )
    title: str = key("str", "Book", "the title shown on every page", read_by=("lib",))
    author: str = key("str", "", "the authors, as the site names them", read_by=("lib",))
    copyright: str = key("str", "", "the copyright line of the site's footer", read_by=("lib",))
    release: str = key("str", "", "the book's version", read_by=("lib",))
    lang: str = key(
        "str",
        "en",
        "the language of the pages (a Sphinx language code: `en`, `zh`, `ja`…): Sphinx's words,"
        " the search's word splitter and the message catalog of polybook's own words",
        read_by=("lib",),
    )
    bibfile: str = key(
        "path",
        "",
        "the BibTeX file that `:cite:` keys name, read by every output that cites: the site and"
        " the epub list the cited entries, the PDFs' bibliography, the notebooks' and slides'"
        " References cells (d2lbook's `[pdf] bibfile` is read as this key)",
        suffix=".bib",
        absolute=True,
        d2lbook=False,
        read_by=("lib",),
    )
    site_url: str = key(
        "str",
        "",
        "where the site is published; each student notebook links back to its page there",
        d2lbook=False,
        read_by=("html", "notebooks", "slides"),
    )
    repository: str = key(
        "str",
        "",
        "the book's GitHub repository (`owner/name`, written by `polybook new --ci github`):"
        " its CI workflow publishes the Colab and SageMaker notebooks to `notebooks_branch`,"
        " which `[colab]` and `[sagemaker]` `github_repo` name when they are not set",
        d2lbook=False,
        read_by=("notebooks", "html"),
    )
    notebooks_branch: str = key(
        "str",
        "notebooks",
        "the branch of `repository` that holds `_build/notebooks/` (the Colab and SageMaker"
        " notebooks the “Open in …” buttons open)",
        d2lbook=False,
        read_by=("notebooks", "html"),
    )


@dataclass(frozen=True)
class BuildSection:
    """``[build]``: the pages, the frameworks, and how the notebooks are executed."""

    SECTION: ClassVar[str] = "build"

    notebooks: tuple[str, ...] = key(
        "words",
        ("*.md", "*/*.md"),
        "the pages: glob patterns relative to the book root",
        read_by=("lib",),
    )
    exclusions: tuple[str, ...] = key(
        "words", (), "patterns of files to leave out of `notebooks`", read_by=("lib",)
    )
    resources: tuple[str, ...] = key(
        "words",
        (),
        "files and folders copied beside the pages (figures, the library)",
        files=True,
        read_by=("lib",),
    )
    allowed_paths: tuple[str, ...] = key(
        "words",
        (),
        "folders outside the book root whose files the book may read: includes, raw and CSV"
        " files, figures, downloads, resources, the bibliography (relative to the book root,"
        " or absolute). Any other file outside the book, directly or through a link, is an"
        " error",
        d2lbook=False,
        read_by=("lib",),
    )
    tabs: tuple[str, ...] = key(
        "words",
        ("pytorch",),
        "frameworks in tab order; the first is the one of untagged code cells. polybook"
        " declares `pytorch`, `mxnet`, `jax`, `tensorflow` and `paddle`; `[framework-<name>]`"
        " declares another; a tab no framework declares runs in the default Python"
        " environment",
        names=True,
        required=True,
        read_by=("lib",),
    )
    eval_notebook: bool = key(
        "bool",
        True,
        "execute the notebooks; when false, pages show no outputs",
        read_by=("eval",),
    )
    strict: bool = key(
        "bool", False, "warnings fail the build, as `sphinx -W`", d2lbook=False, read_by=("lib",)
    )
    jobs: int = key(
        "int",
        0,
        "notebooks run at once",
        d2lbook=False,
        default_text="`0` (the CPU count)",
        read_by=("lib",),
    )
    cell_timeout: int = key(
        "int",
        1200,
        "seconds a cell may run without a sign of life (an output, a progress line): a cell"
        " silent that long is stopped, a kernel whose process stops answering sooner"
        " (`#@timeout N` in a cell overrides)",
        d2lbook=False,
        minimum=1,
        read_by=("eval",),
    )
    fork_kernels: bool = key(
        "bool",
        True,
        "start each notebook's kernel by forking a warm process of its framework's"
        " environment (the framework imported once); `false` starts every kernel afresh",
        d2lbook=False,
        read_by=("eval",),
    )
    output_limit: int = key(
        "int",
        1_000_000,
        "characters of text a cell's outputs show in the site, the PDF and the notebooks"
        " offered for download; the rest is cut, with a note saying how much and where the"
        " whole output is (`0`: no limit)",
        d2lbook=False,
        read_by=("html", "pdf", "epub", "slides"),
    )
    device: str = key(
        "choice",
        "auto",
        "requirement set of the framework environments; `auto` is `cuda` when `nvidia-smi`"
        " finds a GPU",
        d2lbook=False,
        choices=("auto", "cpu", "cuda"),
        read_by=("eval",),
    )
    freeze: str = key(
        "choice",
        "device",
        "what `polybook freeze --all` stores in `_freeze/`: `device`, the runs of the"
        " device-dependent notebooks made on a GPU host; `all`, every notebook's run, so that"
        " the book renders from its committed outputs with no framework installed",
        d2lbook=False,
        choices=("device", "all"),
        read_by=("freeze",),
    )
    gpu_share: int = key(
        "int",
        0,
        "notebooks that may share one GPU; `auto`: as many as its memory (4 GiB each) and the"
        " cores (2 each) allow, each kernel told its share (`[framework-<name>] gpu_share_env`)",
        d2lbook=False,
        minimum=1,
        auto=True,
        default_text="`auto`",
        read_by=("eval",),
    )
    keep_output: tuple[str, ...] = key(
        "patterns",
        (),
        "lines of cell output to keep though their framework's `output_noise` drops them",
        d2lbook=False,
        read_by=("eval",),
    )
    envs_dir: str = key(
        "path",
        "",
        "where the framework environments live (relative to the book root); any folder but"
        " the book's own `.envs` is shared by books, one environment per requirement set"
        " (e.g. `~/.cache/polybook/envs`)",
        d2lbook=False,
        absolute=True,
        outside=True,
        default_text="`$POLYBOOK_ENVS`, else the book's `.envs`",
        read_by=("eval",),
    )
    suppress_warnings: tuple[str, ...] = key(
        "words",
        (),
        "warning subtypes not to report, e.g. `cite exec.devices`",
        d2lbook=False,
        drop_prefix="polybook.",
        read_by=("lib",),
    )
    sphinx_extensions: tuple[str, ...] = key(
        "words",
        (),
        "more Sphinx extensions for the site, e.g. `sphinx.ext.autosummary` for `eval_rst`"
        " blocks (`sphinx.ext.autodoc` is always on, as in d2lbook); a module of the book is"
        " refused by a build that executes nothing (`eval_notebook` off, `executor = none`)"
        " unless it runs with `--trust`",
        read_by=("lib",),
    )
    executor: str = key(
        "str",
        "local",
        "where notebooks run: the name of an executor (they are listed below the table)",
        d2lbook=False,
        read_by=("eval",),
    )
    dask_scheduler: str = key(
        "str",
        "",
        "deprecated: `[executor-dask] scheduler`, which it stands for (a warning at its"
        " line; where both are set, `[executor-dask] scheduler` is used)",
        d2lbook=False,
        read_by=("eval",),
    )
    cache: str = key(
        "str",
        "",
        "the execution cache: a folder (relative to the book root) or an fsspec URL"
        " (`s3://…`) shared by builds, read through `_build/cache/exec`",
        d2lbook=False,
        default_text="`_build/cache/exec`",
        read_by=("eval",),
    )
    data: str = key(
        "str",
        "",
        "the one folder the notebooks of every framework download into: a page's `../data`"
        " (d2l's `download`) is this folder (relative to the book root); a CI that keeps it"
        " downloads nothing again",
        d2lbook=False,
        default_text="`_build/data`",
        read_by=("eval",),
    )
    requirements: tuple[str, ...] = key(
        "words",
        (),
        "pinned requirement files (relative to the book root) of the packages the notebooks"
        " import, installed into every framework's environment; `tab:FILE` for one framework"
        " only, e.g. `requirements/book.txt pytorch:requirements/torchvision.txt`",
        d2lbook=False,
        files=True,
        read_by=("lib",),
    )
