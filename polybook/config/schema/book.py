"""The keys of ``[project]`` and ``[build]``: the book, its pages and how it is built."""

from __future__ import annotations

from polybook.config.schema.key import Key


def _project(name: str, default: str, help: str) -> Key:
    return Key("project", name, "str", default, help)


BOOK_KEYS: tuple[Key, ...] = (
    _project("name", "book", "the book's name, used in the names of output files"),
    _project("title", "Book", "the title shown on every page"),
    _project("author", "", "the authors, as the site names them"),
    _project("copyright", "", "the copyright line of the site's footer"),
    _project("release", "", "the book's version"),
    _project(
        "lang",
        "en",
        "the language of the pages (a Sphinx language code: `en`, `zh`, `ja`…): Sphinx's words,"
        " the search's word splitter and the message catalog of polybook's own words",
    ),
    Key(
        "project",
        "site_url",
        "str",
        "",
        "where the site is published; each student notebook links back to its page there",
        d2lbook=False,
    ),
    Key(
        "build",
        "notebooks",
        "words",
        ("*.md", "*/*.md"),
        "the pages: glob patterns relative to the book root",
    ),
    Key("build", "exclusions", "words", (), "patterns of files to leave out of `notebooks`"),
    Key(
        "build",
        "resources",
        "words",
        (),
        "files and folders copied beside the pages (figures, the library)",
        files=True,
    ),
    Key(
        "build",
        "allowed_paths",
        "words",
        (),
        "folders outside the book root whose files the book may read: includes, raw and CSV"
        " files, figures, downloads, resources, the bibliography (relative to the book root,"
        " or absolute). Any other file outside the book, directly or through a link, is an"
        " error",
        d2lbook=False,
    ),
    Key(
        "build",
        "tabs",
        "words",
        ("pytorch",),
        "frameworks in tab order; the first is the one of untagged code cells. polybook"
        " declares `pytorch`, `mxnet`, `jax` and `tensorflow`; `[framework-<name>]` declares"
        " another",
        names=True,
        required=True,
    ),
    Key(
        "build",
        "eval_notebook",
        "bool",
        True,
        "execute the notebooks; when false, pages show no outputs",
    ),
    Key("build", "strict", "bool", False, "warnings fail the build, as `sphinx -W`", d2lbook=False),
    Key(
        "build",
        "jobs",
        "int",
        0,
        "notebooks run at once",
        d2lbook=False,
        default_text="`0` (the CPU count)",
    ),
    Key(
        "build",
        "cell_timeout",
        "int",
        1200,
        "seconds a cell may run without a sign of life (an output, a progress line): a cell"
        " silent that long is stopped, a kernel whose process stops answering sooner"
        " (`#@timeout N` in a cell overrides)",
        d2lbook=False,
        minimum=1,
    ),
    Key(
        "build",
        "fork_kernels",
        "bool",
        True,
        "start each notebook's kernel by forking a warm process of its framework's"
        " environment (the framework imported once); `false` starts every kernel afresh",
        d2lbook=False,
    ),
    Key(
        "build",
        "output_limit",
        "int",
        1_000_000,
        "characters of text a cell's outputs show in the site, the PDF and the notebooks"
        " offered for download; the rest is cut, with a note saying how much and where the"
        " whole output is (`0`: no limit)",
        d2lbook=False,
    ),
    Key(
        "build",
        "device",
        "choice",
        "auto",
        "requirement set of the framework environments; `auto` is `cuda` when `nvidia-smi`"
        " finds a GPU",
        d2lbook=False,
        choices=("auto", "cpu", "cuda"),
    ),
    Key(
        "build", "gpu_share", "int", 1, "notebooks that may share one GPU", d2lbook=False, minimum=1
    ),
    Key(
        "build",
        "envs_dir",
        "path",
        "",
        "where the framework environments live (relative to the book root); any folder but"
        " the book's own `.envs` is shared by books, one environment per requirement set"
        " (e.g. `~/.cache/polybook/envs`)",
        d2lbook=False,
        absolute=True,
        outside=True,
        default_text="`$POLYBOOK_ENVS`, else the book's `.envs`",
    ),
    Key(
        "build",
        "suppress_warnings",
        "words",
        (),
        "warning subtypes not to report, e.g. `cite exec.devices`",
        d2lbook=False,
        drop_prefix="polybook.",
    ),
    Key(
        "build",
        "sphinx_extensions",
        "words",
        (),
        "more Sphinx extensions for the site, e.g. `sphinx.ext.autosummary` for `eval_rst`"
        " blocks (`sphinx.ext.autodoc` is always on, as in d2lbook); a module of the book is"
        " refused by a build that executes nothing (`eval_notebook` off, `executor = none`)"
        " unless it runs with `--trust`",
    ),
    Key(
        "build",
        "executor",
        "choice",
        "local",
        "where notebooks run: `local` worker processes, a Dask cluster (`dask`), or nowhere"
        " (`none`: every notebook from the execution cache or `_freeze/`, no framework"
        " installed; one missing there is an error, as in CI's job that builds the outputs)",
        d2lbook=False,
        choices=("local", "dask", "none"),
    ),
    Key(
        "build",
        "dask_scheduler",
        "str",
        "",
        "the Dask scheduler of `executor = dask`, `tcp://HOST:PORT`",
        d2lbook=False,
    ),
    Key(
        "build",
        "cache",
        "str",
        "",
        "the execution cache: a folder (relative to the book root) or an fsspec URL"
        " (`s3://…`) shared by builds, read through `_build/cache/exec`",
        d2lbook=False,
        default_text="`_build/cache/exec`",
    ),
    Key(
        "build",
        "requirements",
        "words",
        (),
        "pinned requirement files (relative to the book root) of the packages the notebooks"
        " import, installed into every framework's environment; `tab:FILE` for one framework"
        " only, e.g. `requirements/book.txt pytorch:requirements/torchvision.txt`",
        d2lbook=False,
        files=True,
    ),
)
