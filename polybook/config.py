"""The book's configuration: ``config.ini`` (d2lbook's sections and keys) as one dataclass."""

from __future__ import annotations

import configparser
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from polybook import frameworks
from polybook.diagnostics import Diagnostic, Location, PolybookError

CONFIG_FILE = "config.ini"

# Keys polybook implements, per section; every other key is reported once as ignored.
KNOWN_KEYS: dict[str, set[str]] = {
    "project": {"name", "title", "author", "copyright", "release", "lang"},
    "build": {
        "notebooks",
        "exclusions",
        "resources",
        "tabs",
        "eval_notebook",
        "cell_timeout",
        "jobs",
        "device",
        "envs_dir",
        "gpu_share",
        "suppress_warnings",
    },
    "library": {"framework_specific"},
    "html": set(),
}
LIBRARY_KEYS = {"lib_file", "lib_name"}
DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class LibraryTarget:
    """Where one framework's ``#@save`` code is written."""

    framework: str
    lib_file: str
    lib_name: str


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
    notebooks: tuple[str, ...] = ("*.md", "*/*.md")
    exclusions: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    tabs: tuple[str, ...] = ("pytorch",)
    eval_notebook: bool = True
    cell_timeout: int = 1200
    jobs: int = 0
    device: str = "auto"
    envs_dir: str = ""
    gpu_share: int = 1
    framework_specific: tuple[str, ...] = ()
    suppress_warnings: tuple[str, ...] = ()
    libraries: Mapping[str, LibraryTarget] = field(default_factory=lambda: MappingProxyType({}))
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
        lib_name = frameworks.get(framework).lib_name
        return LibraryTarget(framework, f"d2l/{lib_name}.py", lib_name)


def _split_list(value: str) -> tuple[str, ...]:
    return tuple(v for v in value.replace(",", " ").split() if v)


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """Line number of each ``key =`` in each section, for located messages."""
    lines: dict[tuple[str, str], int] = {}
    section = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif "=" in line and not line.startswith(("#", ";")) and not raw[:1].isspace():
            lines[(section, line.split("=", 1)[0].strip().lower())] = number
    return lines


def load_config(root: Path, overrides: Mapping[str, str] | None = None) -> BookConfig:
    """Read and validate ``root/config.ini``; ``overrides`` maps ``section.key`` to values."""
    path = root / CONFIG_FILE
    if not path.is_file():
        raise PolybookError(Location(str(path)), "no config.ini in the book root", "config")
    text = path.read_text(encoding="utf-8")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error as exc:
        raise PolybookError(Location(CONFIG_FILE), f"cannot read: {exc}", "config") from exc
    for dotted, value in (overrides or {}).items():
        section, _, key = dotted.partition(".")
        if not parser.has_section(section):
            parser.add_section(section)
        parser.set(section, key, value)
    return _validate(root.resolve(), parser, _key_lines(text))


def _validate(
    root: Path, parser: configparser.ConfigParser, key_lines: dict[tuple[str, str], int]
) -> BookConfig:
    def where(section: str, key: str) -> Location:
        return Location(CONFIG_FILE, key_lines.get((section, key), 0))

    def get(section: str, key: str, default: str) -> str:
        return parser.get(section, key, fallback=default).strip()

    tabs = _split_list(get("build", "tabs", "pytorch"))
    for tab in tabs:
        if tab not in frameworks.REGISTRY:
            known = ", ".join(frameworks.REGISTRY)
            raise PolybookError(
                where("build", "tabs"), f"unknown framework {tab!r} (known: {known})", "config"
            )
    if not tabs:
        raise PolybookError(where("build", "tabs"), "no framework in tabs", "config")

    ignored: list[Diagnostic] = []
    libraries: dict[str, LibraryTarget] = {}
    for section in parser.sections():
        if section.startswith("library-"):
            tab = section.removeprefix("library-")
            if tab in frameworks.REGISTRY:
                default = frameworks.get(tab).lib_name
                libraries[tab] = LibraryTarget(
                    tab,
                    get(section, "lib_file", f"d2l/{default}.py"),
                    get(section, "lib_name", default),
                )
            allowed = LIBRARY_KEYS
        else:
            allowed = KNOWN_KEYS.get(section, set())
        for key in parser.options(section):
            if key not in allowed and parser.get(section, key).strip():
                ignored.append(
                    Diagnostic(where(section, key), f"[{section}] {key} is ignored", "config")
                )

    def integer(key: str, default: int) -> int:
        raw = get("build", key, str(default))
        try:
            return int(raw)
        except ValueError:
            message = f"{key} must be an integer"
            raise PolybookError(where("build", key), message, "config") from None

    device = get("build", "device", "auto").lower()
    if device not in DEVICES:
        raise PolybookError(
            where("build", "device"), f"device must be one of {', '.join(DEVICES)}", "config"
        )
    return BookConfig(
        root=root,
        name=get("project", "name", "book"),
        title=get("project", "title", "Book"),
        author=get("project", "author", ""),
        copyright=get("project", "copyright", ""),
        release=get("project", "release", ""),
        lang=get("project", "lang", "en"),
        notebooks=_split_list(get("build", "notebooks", "*.md */*.md")),
        exclusions=_split_list(get("build", "exclusions", "")),
        resources=_split_list(get("build", "resources", "")),
        tabs=tabs,
        eval_notebook=get("build", "eval_notebook", "true").lower() in {"1", "true", "yes"},
        cell_timeout=integer("cell_timeout", 1200),
        jobs=integer("jobs", 0),
        device=device,
        envs_dir=get("build", "envs_dir", ""),
        gpu_share=max(1, integer("gpu_share", 1)),
        framework_specific=_split_list(get("library", "framework_specific", "")),
        suppress_warnings=tuple(
            w.removeprefix("polybook.") for w in _split_list(get("build", "suppress_warnings", ""))
        ),
        libraries=MappingProxyType(libraries),
        ignored=tuple(ignored),
    )
