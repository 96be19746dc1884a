"""Every ``config.ini`` key polybook reads, declared once in :data:`KEYS`.

Parsing and validation (:meth:`Key.parse`), :class:`~polybook.config.BookConfig`'s values and
the README's table are all derived from these entries. d2lbook keys that polybook does not
implement are listed in :data:`D2LBOOK_IGNORED`: they are read and reported as ignored.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

Kind = Literal["bool", "int", "str", "choice", "words", "path", "name"]
Value = bool | int | str | tuple[str, ...]

TRUE = ("true", "yes", "on", "1")
FALSE = ("false", "no", "off", "0")
LIBRARY_SECTION = "library-<tab>"  # stands for [library-pytorch], [library-jax], …
FRAMEWORK_SECTION = "framework-<name>"  # a framework's declaration, [framework-paddle]
ENV_SECTION = "env-<tab>"  # where a framework runs when not in polybook's venv, [env-jax]


class BadValue(ValueError):
    """A value a key does not accept; the text says what it accepts."""


@dataclass(frozen=True)
class Key:
    """One key of ``config.ini``: how it is read, checked and documented."""

    section: str
    name: str  # also the BookConfig (or LibraryTarget) field it fills
    kind: Kind
    default: Value
    help: str
    d2lbook: bool = True  # False: a key polybook adds
    minimum: int = 0  # int: the least accepted value
    choices: tuple[str, ...] = ()  # choice, words: the accepted values
    required: bool = False  # words: at least one
    drop_prefix: str = ""  # words: removed from each word (``polybook.cite`` → ``cite``)
    pairs: bool = False  # words: one value for every framework, or `framework value` pairs
    names: bool = False  # words: each a Python name
    suffix: str = ""  # path: the name must end so
    absolute: bool = False  # path: stored resolved against the book root
    default_text: str = ""  # the default as the README shows it, when not the value
    attr: str = ""  # the BookConfig field it fills, when not ``name``

    def parse(self, raw: str) -> Value:
        """The value of ``raw``; an empty value is the default. Raises :class:`BadValue`."""
        text = raw.strip()
        if not text:
            return self.default
        if self.kind == "bool":
            return _boolean(text)
        if self.kind == "int":
            return self._integer(text)
        if self.kind == "choice":
            return self._choose(text.lower())
        if self.kind == "words":
            return self._words(text)
        if self.kind == "name" and not text.isidentifier():
            raise BadValue(f"{text!r} is not a Python module name (letters, digits, _)")
        if self.kind == "path" and self.suffix and not text.endswith(self.suffix):
            raise BadValue(f"{text!r} is not a {self.suffix} file")
        if self.suffix == ".py" and not PurePosixPath(text).stem.isidentifier():
            raise BadValue(f"{text!r} cannot be imported: its name is not a Python module name")
        return text

    def _integer(self, text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise BadValue(f"{text!r} is not an integer") from None
        if number < self.minimum:
            raise BadValue(f"{number} is too small: the least accepted is {self.minimum}")
        return number

    def _choose(self, word: str) -> str:
        if word not in self.choices:
            accepted = ", ".join(self.choices)
            raise BadValue(f"{word!r} is not one of {accepted}{did_you_mean(word, self.choices)}")
        return word

    def _words(self, text: str) -> tuple[str, ...]:
        words = tuple(w.removeprefix(self.drop_prefix) for w in split_words(text))
        if self.choices:
            words = tuple(self._choose(w.lower()) for w in words)
        bad = [w for w in words if self.names and not w.isidentifier()]
        if bad:
            raise BadValue(f"{bad[0]!r} is not a name (letters, digits, _)")
        twice = [w for i, w in enumerate(words) if w in words[:i]]
        if twice and (self.choices or self.names):
            raise BadValue(f"{twice[0]!r} is named twice")
        if self.required and not words:
            raise BadValue(f"name at least one of {', '.join(self.choices) or 'them'}")
        if self.pairs and len(words) > 1:
            _check_pairs(words)
        return words

    @property
    def field_name(self) -> str:
        """The BookConfig field the key fills."""
        return self.attr or self.name

    @property
    def type_text(self) -> str:
        """The accepted values, for the README."""
        if self.kind == "bool":
            return "boolean"
        if self.kind == "int":
            return f"integer ≥ {self.minimum}"
        listed = ", ".join(f"`{c}`" for c in self.choices)
        if self.kind == "choice":
            return f"one of {listed}"
        if self.kind == "words" and self.pairs:
            return "a word, or `framework word` pairs"
        if self.kind == "words":
            return f"words from {listed}" if self.choices else "names" if self.names else "words"
        if self.kind == "name":
            return "module name"
        if self.kind == "path":
            return f"path to a `{self.suffix}` file" if self.suffix else "path"
        return "text"

    @property
    def shown_default(self) -> str:
        """The default, for the README."""
        if self.default_text:
            return self.default_text
        if isinstance(self.default, bool):
            return f"`{str(self.default).lower()}`"
        if isinstance(self.default, tuple):
            return f"`{' '.join(self.default)}`" if self.default else "none"
        return f"`{self.default}`" if self.default != "" else "empty"


def _boolean(text: str) -> bool:
    word = text.lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    raise BadValue(f"{text!r} is not a boolean: use true/false, yes/no, on/off or 1/0")


def _check_pairs(words: tuple[str, ...]) -> None:
    names = words[::2]
    if len(words) % 2 or not all(n.isidentifier() for n in names):
        raise BadValue("give one value for every framework, or `framework value` pairs")


def for_framework(words: tuple[str, ...], framework: str, default: str = "") -> str:
    """The value a ``pairs`` key gives ``framework``: its pair's, or the one value."""
    if len(words) == 1:
        return words[0]
    return dict(zip(words[::2], words[1::2], strict=True)).get(framework, default)


def split_words(text: str) -> tuple[str, ...]:
    """A list value: words separated by commas, spaces or lines."""
    return tuple(text.replace(",", " ").split())


def nearest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word`` (a likely typo of it), if any is close."""
    close = difflib.get_close_matches(word.lower(), list(candidates), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the candidate closest to ``word``, else ``""``."""
    close = nearest(word, candidates)
    return f"; did you mean {close!r}?" if close else ""


def _project(name: str, default: str, help: str) -> Key:
    return Key("project", name, "str", default, help)


KEYS: tuple[Key, ...] = (
    _project("name", "book", "the book's name, used in the names of output files"),
    _project("title", "Book", "the title shown on every page"),
    _project("author", "", "the authors, as the site names them"),
    _project("copyright", "", "the copyright line of the site's footer"),
    _project("release", "", "the book's version"),
    _project("lang", "en", "the language of the pages (a Sphinx language code)"),
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
        "seconds a cell may run (`#@timeout N` in a cell overrides)",
        d2lbook=False,
        minimum=1,
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
        "where the framework environments live (relative to the book root)",
        d2lbook=False,
        absolute=True,
        default_text="`$POLYBOOK_ENVS`, else `.envs` beside polybook",
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
        " blocks (`sphinx.ext.autodoc` is always on, as in d2lbook)",
    ),
    Key(
        "build",
        "executor",
        "choice",
        "local",
        "where notebooks run: `local` worker processes, or a Dask cluster (`dask`)",
        d2lbook=False,
        choices=("local", "dask"),
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
    ),
    Key(
        "library",
        "framework_specific",
        "words",
        (),
        "public library names only some frameworks define",
        d2lbook=False,
    ),
    Key(
        "library",
        "install",
        "str",
        "{package}=={release}",
        "what the student notebooks' first cell installs for the library: a pip requirement,"
        " a wheel URL or path, or a git URL; `{package}` is the library's package (`d2l`),"
        " `{release}` is `[project] release`",
        d2lbook=False,
    ),
    Key(
        LIBRARY_SECTION,
        "lib_file",
        "path",
        "",
        "the file the framework's `#@save` code is written to",
        suffix=".py",
        default_text="`d2l/<module>.py`, the framework's `module`: `torch`, `mxnet`, `jax`,"
        " `tensorflow` for polybook's four",
    ),
    Key(
        LIBRARY_SECTION,
        "lib_name",
        "name",
        "",
        "the module `simple_alias` points into, as d2lbook names it (`np`, `torch`, `tf`)",
        attr="alias_module",
    ),
    Key(
        LIBRARY_SECTION,
        "simple_alias",
        "str",
        "",
        "`name` or `name -> attr`, comma-separated: `name = <lib_name>.attr` is added to the"
        " library, after the saved code that imports what it reads",
    ),
    Key(
        LIBRARY_SECTION,
        "fluent_alias",
        "str",
        "",
        "the same: `name = lambda x, *args, **kwargs: x.attr(*args, **kwargs)` is added",
    ),
    Key(
        LIBRARY_SECTION,
        "alias",
        "str",
        "",
        "lines of code added to the library as written, each after the saved code that"
        " imports what it reads",
    ),
    Key(
        LIBRARY_SECTION,
        "reverse_alias",
        "str",
        "",
        "`pattern -> replacement` regular expressions applied to the framework's code cells,"
        " before the aliases: `d2l.ones` becomes `<lib_name>.ones` and `d2l.reshape(x, s)`"
        " becomes `x.reshape(s)` in what readers see and run",
    ),
    Key(
        FRAMEWORK_SECTION,
        "display_name",
        "str",
        "",
        "the framework's name on tabs, notebooks and pages",
        d2lbook=False,
        default_text="the tab's name",
    ),
    Key(
        FRAMEWORK_SECTION,
        "module",
        "name",
        "",
        "the module the framework is imported as, and the default name of its library module",
        d2lbook=False,
        default_text="the tab's name",
    ),
    Key(
        FRAMEWORK_SECTION,
        "distributions",
        "words",
        (),
        "pip names of the framework's package, its CPU and CUDA builds: their installed version"
        " is the framework's version in build reports",
        d2lbook=False,
        default_text="the `module`",
    ),
    Key(
        FRAMEWORK_SECTION,
        "cpu_requirements",
        "path",
        "",
        "the pinned requirement file of the framework's CPU environment (relative to the book"
        " root); a framework without one can be split and rendered, not executed",
        d2lbook=False,
    ),
    Key(
        FRAMEWORK_SECTION,
        "cuda_requirements",
        "path",
        "",
        "the pinned requirement file of its environment on GPU hosts",
        d2lbook=False,
        default_text="the `cpu_requirements`",
    ),
    Key(
        FRAMEWORK_SECTION,
        "kernel_env",
        "words",
        (),
        "`NAME=VALUE` variables set in the framework's kernels",
        d2lbook=False,
    ),
    Key(
        FRAMEWORK_SECTION,
        "gpu_patterns",
        "words",
        (),
        "regular expressions (no spaces) whose first group is a GPU index, in the framework's"
        r" own device naming, e.g. `CUDAPlace\((\d+)\)`: a cell naming GPU k needs k + 1 GPUs",
        d2lbook=False,
    ),
    Key(
        ENV_SECTION,
        "python",
        "path",
        "",
        "an existing Python (a conda environment, a cluster module) that runs the framework's"
        " notebooks instead of a venv of polybook's; it must import the framework and ipykernel",
        d2lbook=False,
        default_text="none: polybook's venv in `envs_dir`",
    ),
    Key(
        ENV_SECTION,
        "install_kernel",
        "bool",
        False,
        "let polybook install ipykernel (and only what it needs) into that Python when it lacks it",
        d2lbook=False,
    ),
    Key(
        "colab",
        "github_repo",
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/notebooks/` for"
        " “Open in Colab” links, or `framework owner/name` pairs, each holding that"
        " framework's `colab/` folder at its root (d2lbook's layout)",
        pairs=True,
    ),
    Key(
        "colab",
        "branch",
        "str",
        "main",
        "the branch of `github_repo` that Colab opens",
        d2lbook=False,
    ),
    Key(
        "sagemaker",
        "kernel",
        "words",
        ("python3",),
        "the Jupyter kernel of the SageMaker notebooks, or `framework kernel` pairs",
        pairs=True,
    ),
    Key(
        "sagemaker",
        "github_repo",
        "words",
        (),
        "the GitHub repository (`owner/name`) that holds `_build/notebooks/` for “Open in"
        " SageMaker Studio Lab” links, or `framework owner/name` pairs, each holding that"
        " framework's `sagemaker/` folder at its root",
        pairs=True,
        attr="sagemaker_repo",
    ),
    Key(
        "sagemaker",
        "branch",
        "str",
        "main",
        "the branch of `github_repo` that SageMaker Studio Lab opens",
        d2lbook=False,
        attr="sagemaker_branch",
    ),
    Key(
        "html",
        "favicon",
        "path",
        "",
        "the site's favicon (`.ico`, `.png` or `.svg`), relative to the book root",
        absolute=True,
    ),
    Key(
        "html",
        "html_logo",
        "path",
        "",
        "the logo above the site's navigation, relative to the book root",
        absolute=True,
    ),
    Key(
        "html",
        "serve_port",
        "int",
        0,
        "the port `polybook serve` listens on (on 127.0.0.1)",
        d2lbook=False,
        default_text="`0` (the first free one from 8000)",
    ),
    Key(
        "pdf",
        "bibfile",
        "path",
        "",
        "the BibTeX file that `:cite:` keys name; the site lists the cited entries",
        suffix=".bib",
        absolute=True,
    ),
    Key(
        "pdf",
        "latex_logo",
        "path",
        "",
        "the image on the PDFs' title page (`.pdf`, `.png`, `.jpg` or `.svg`), relative to"
        " the book root",
        absolute=True,
    ),
    Key("pdf", "main_font", "str", "", "the PDFs' body font", default_text="`FreeSerif`"),
    Key("pdf", "sans_font", "str", "", "the PDFs' headings font", default_text="`FreeSans`"),
    Key(
        "pdf",
        "mono_font",
        "str",
        "",
        "the PDFs' code and outputs font (it needs the outputs' characters, e.g. box drawing)",
        default_text="`DejaVu Sans Mono`",
    ),
)

# Keys d2lbook defines in the sections polybook reads, that polybook does not implement.
D2LBOOK_IGNORED: dict[str, tuple[str, ...]] = {
    "project": (),
    "build": (
        "index",
        "rsts",
        "non-notebooks",
        "dependencies",
        "source_dir",
        "output_dir",
        "warning_is_error",
        "sphinx_configs",
        "origin_repo",
        "max_line_length",
        "rename",
    ),
    "library": (
        "version_file",
        "root_dir",
        "release",
        "save_filename",
        "save_mark",
        "save_patterns",
        "version",
    ),
    LIBRARY_SECTION: (),
}
# d2lbook's sections of which polybook reads only the keys in KEYS: each other key set in them
# is reported as ignored.
D2LBOOK_SECTIONS = ("html", "pdf", "deploy", "colab", "sagemaker", "slides", "translation")
# Hints for ignored keys that polybook covers under another name.
RENAMED = {("build", "warning_is_error"): "polybook's key is `strict`"}
RENAMED[("colab", "gpu_pattern")] = "polybook infers GPU needs from the code, as the build does"
RENAMED[("html", "include_css")] = (
    "the site links every `.css` and `.js` file in the book's `static/` folder"
)


def keys_of(section: str) -> tuple[Key, ...]:
    """The keys of ``section``; ``[library-<tab>]`` and ``[framework-<name>]`` sections share
    theirs."""
    if section.startswith("library-"):
        section = LIBRARY_SECTION
    elif section.startswith("framework-"):
        section = FRAMEWORK_SECTION
    elif section.startswith("env-"):
        section = ENV_SECTION
    return tuple(k for k in KEYS if k.section == section)
