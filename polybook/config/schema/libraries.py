"""``[library]``, ``[library-<tab>]``, ``[framework-<name>]`` and ``[env-<tab>]``: where each
framework's library goes, and what a framework is and where it runs; each key declared once, as
a field of its section's dataclass (a framework's, as a :class:`Key`: its values become a
:class:`~polybook.frameworks.Framework`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from polybook.config.schema.key import ENV_SECTION, FRAMEWORK_SECTION, LIBRARY_SECTION, Key, key


@dataclass(frozen=True)
class LibrarySection:
    """``[library]``: the library as a package."""

    SECTION: ClassVar[str] = "library"

    framework_specific: tuple[str, ...] = key(
        "words",
        (),
        "public library names only some frameworks define",
        d2lbook=False,
        read_by=("lib",),
    )
    version_file: str = key(
        "path",
        "",
        'a Python file of the book (`d2l/__init__.py`) whose `__version__ = "…"` line'
        " `build lib` (and every build that writes the library) sets to `[project] release`,"
        " the rest of the file kept as it is; a missing file is a warning at its line",
        suffix=".py",
        read_by=("lib",),
    )
    package: str = key(
        "dist",
        "",
        "the library's distribution name, as its wheel and a package index name it"
        " (`mybook-d2l`); it still imports as its folder's name (`d2l`)",
        d2lbook=False,
        default_text="the package folder's name (`d2l`)",
        read_by=("lib",),
    )
    install: str = key(
        "str",
        "",
        "what the student notebooks' first cell installs for the library: a pip requirement"
        " (`{package}=={release}` for a package of the index), a wheel URL or path, or a git"
        " URL; `{package}` is the distribution name, `{release}` is `[project] release`",
        d2lbook=False,
        default_text="the wheel the site publishes (`[html] base_url`), else the one beside"
        " the notebooks in `[colab]` / `[sagemaker]` `github_repo`, else"
        " `{package}=={release}` from the package index (a warning)",
        read_by=("notebooks", "html"),
    )


@dataclass(frozen=True)
class LibraryAliases:
    """d2lbook's alias keys of ``[library-<tab>]``, as written (see
    :mod:`polybook.library.aliases`), with the config line of each key."""

    SECTION: ClassVar[str] = LIBRARY_SECTION

    lib_name: str = key(
        "name",
        "",
        "the module `simple_alias` points into, as d2lbook names it (`np`, `torch`, `tf`)",
        read_by=("lib",),
    )
    simple_alias: str = key(
        "str",
        "",
        "`name` or `name -> attr`, comma-separated: `name = <lib_name>.attr` is added to the"
        " library, after the saved code that imports what it reads",
        read_by=("lib",),
    )
    fluent_alias: str = key(
        "str",
        "",
        "the same: `name = lambda x, *args, **kwargs: x.attr(*args, **kwargs)` is added",
        read_by=("lib",),
    )
    alias: str = key(
        "str",
        "",
        "lines of code added to the library as written, each after the saved code that"
        " imports what it reads",
        read_by=("lib",),
    )
    reverse_alias: str = key(
        "str",
        "",
        "`text -> replacement`, one a line, replaced as written (not a regular expression) in"
        " the framework's code cells, before the aliases, which d2lbook applies likewise:"
        " `d2l.ones` becomes `<lib_name>.ones` and `d2l.reshape(x, s)` `x.reshape(s)` in what"
        " readers see and run",
        read_by=("lib",),
    )
    lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class LibraryTarget:
    """``[library-<tab>]``: where one framework's ``#@save`` code is written, the module's
    name, and its aliases."""

    SECTION: ClassVar[str] = LIBRARY_SECTION

    framework: str
    lib_name: str  # ``from d2l import <lib_name> as d2l``: ``lib_file``'s name
    lib_file: str = key(
        "path",
        "",
        "the file the framework's `#@save` code is written to",
        suffix=".py",
        default_text="`d2l/<module>.py`, the framework's `module`: `torch`, `mxnet`, `jax`,"
        " `tensorflow`, `paddle` for those polybook ships; the tab's name for a tab no"
        " framework declares",
        read_by=("lib",),
    )
    aliases: LibraryAliases = LibraryAliases()


FRAMEWORK_KEYS: tuple[Key, ...] = (
    Key(
        FRAMEWORK_SECTION,
        "display_name",
        "str",
        "",
        "the framework's name on tabs, notebooks and pages",
        d2lbook=False,
        default_text="the tab's name",
        read_by=("lib",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "module",
        "name",
        "",
        "the module the framework is imported as, and the default name of its library module",
        d2lbook=False,
        default_text="the tab's name",
        read_by=("lib",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "distributions",
        "words",
        (),
        "pip names of the framework's package, its CPU and CUDA builds: their installed version"
        " is the framework's version in build reports",
        lower=True,
        d2lbook=False,
        default_text="the `module`",
        read_by=("lib",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "cpu_requirements",
        "path",
        "",
        "the pinned requirement file of the framework's CPU environment (relative to the book"
        " root); a framework without one can be split and rendered, not executed",
        absolute=True,
        d2lbook=False,
        read_by=("lib",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "cuda_requirements",
        "path",
        "",
        "the pinned requirement file of its environment on GPU hosts",
        absolute=True,
        d2lbook=False,
        default_text="the `cpu_requirements`",
        read_by=("lib",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "kernel_env",
        "variables",
        (),
        "`NAME=VALUE` variables set in the framework's kernels",
        d2lbook=False,
        read_by=("eval",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "gpu_patterns",
        "words",
        (),
        "regular expressions (no spaces) whose first group is a GPU index, in the framework's"
        r" own device naming, e.g. `CUDAPlace\((\d+)\)`: a cell naming GPU k needs k + 1 GPUs",
        d2lbook=False,
        read_by=("eval",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "device_errors",
        "words",
        (),
        r"regular expressions (no spaces: `\s`) matching the framework's errors that say the"
        " host lacks a device (beside CUDA's own): a cell failing with one is badged \"needs N"
        ' GPUs" and its notebook goes on',
        d2lbook=False,
        read_by=("eval",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "output_noise",
        "words",
        (),
        r"regular expressions (no spaces: `\s`; no commas: `\x2c`) matching the lines the"
        " framework logs on a cell's stderr that say nothing of the cell (a C++ log, absl,"
        " deprecation chatter): dropped from stored outputs, a Python warning's whole record"
        " with its first line (`[build] keep_output` keeps one)",
        d2lbook=False,
        read_by=("eval",),
    ),
    Key(
        FRAMEWORK_SECTION,
        "gpu_share_env",
        "variables",
        (),
        "`NAME=VALUE` variables set in a kernel that shares its GPU with other notebooks"
        " (`[build] gpu_share` above 1); `{fraction}` in a value is its share of the GPU's"
        " memory, e.g. `XLA_PYTHON_CLIENT_MEM_FRACTION={fraction}`",
        d2lbook=False,
        read_by=("eval",),
    ),
)


# A new declaration's keys it leaves unset: another key's value (``NAME``: the framework's
# name), a word list of one for a ``words`` key; the rest take their default. A declaration
# over another (a book's over a shipped one) keeps what it leaves unset.
FRAMEWORK_NAME = "<name>"
FRAMEWORK_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {"display_name": FRAMEWORK_NAME, "module": FRAMEWORK_NAME, "distributions": "module"}
)


@dataclass(frozen=True)
class EnvSettings:
    """``[env-<tab>]``: an existing Python that runs a framework instead of polybook's venv."""

    SECTION: ClassVar[str] = ENV_SECTION

    framework: str
    python: str = key(
        "path",
        "",
        "an existing Python (a conda environment, a cluster module) that runs the framework's"
        " notebooks instead of a venv of polybook's; it must import the framework and ipykernel",
        d2lbook=False,
        outside=True,
        default_text="none: polybook's venv in `envs_dir`",
        read_by=("eval",),
    )
    install_kernel: bool = key(
        "bool",
        False,
        "let polybook install ipykernel (and only what it needs) into that Python when it lacks it",
        d2lbook=False,
        read_by=("eval",),
    )
    line: int = 0  # of ``python =`` in config.ini, for messages
