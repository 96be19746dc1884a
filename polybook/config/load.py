"""Reading ``config.ini``: each value checked against the schema, errors and warnings at their
line, and finding the book a command runs in."""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from polybook import frameworks
from polybook.config.declarations import SHIPPED, declaration_problems, declare
from polybook.config.editions import read_editions
from polybook.config.executor_sections import (
    executor_sections,
    read_executor_settings,
    unread_section,
)
from polybook.config.executors import executor_keys
from polybook.config.ini_text import (
    CONFIG_FILE,
    decode_config,
    key_lines,
    parse_errors,
)
from polybook.config.model import (
    BookConfig,
    EnvSettings,
    LibraryAliases,
    LibraryTarget,
    default_library,
)
from polybook.config.presented import presented_warnings
from polybook.config.requirements import unpinned_requirement
from polybook.config.schema import (
    D2LBOOK_IGNORED,
    D2LBOOK_SECTIONS,
    EDITION_SECTION,
    ENV_SECTION,
    FRAMEWORK_SECTION,
    KEYS,
    LIBRARY_SECTION,
    RENAMED,
    SECTIONS,
    BadValue,
    BuildSection,
    ColabSection,
    Key,
    ProjectSection,
    SagemakerSection,
    Value,
    declared_keys,
    did_you_mean,
    keys_of,
    nearest,
    split_words,
)
from polybook.config.schema.executors import EXECUTOR_PREFIX
from polybook.diagnostics import Diagnostic, Location, PolybookError, raise_all
from polybook.frameworks import Framework

COMMAND_LINE = "command line"  # where overridden values are reported
_NO_DEFAULT = "\x00default"  # so that a [DEFAULT] section is an ordinary, unknown one
# The sections polybook reads, bar [library-<tab>] and d2lbook's output sections.
_SECTIONS = ("project", "build", "library", "drift", "compat")

REPOSITORY = re.compile(r"^[\w.-]+/[\w.-]+$")  # a GitHub repository: owner/name


def find_book_root(start: Path) -> Path:
    """The folder holding ``config.ini``: ``start`` or its nearest parent that has one."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    message = (
        f"no {CONFIG_FILE} in {start} or any parent folder: run polybook inside a book, "
        "or pass --root DIR"
    )
    raise PolybookError(Location(str(start)), message, "config")


def load_config(root: Path, overrides: Mapping[str, str] | None = None) -> BookConfig:
    """Read and validate ``root/config.ini``; ``overrides`` maps ``section.key`` to values
    (``{"build.strict": "true"}``), checked as if written in the file. Every bad value is
    reported at once (:class:`~polybook.diagnostics.PolybookErrors`)."""
    path = root / CONFIG_FILE
    if not path.is_file():
        message = f"no {CONFIG_FILE} in {root.resolve()}"
        raise PolybookError(Location(str(path)), message, "config")
    try:
        data = path.read_bytes()
    except OSError as exc:
        message = f"cannot read: {exc.strerror}"
        raise PolybookError(Location(CONFIG_FILE), message, "config") from exc
    text = decode_config(data)
    parser = configparser.ConfigParser(interpolation=None, default_section=_NO_DEFAULT)
    try:
        parser.read_string(text, source=CONFIG_FILE)
    except configparser.Error as exc:
        raise_all(parse_errors(exc))
    overridden: set[tuple[str, str]] = set()
    for dotted, value in (overrides or {}).items():
        section, _, key = dotted.partition(".")
        if not parser.has_section(section):
            parser.add_section(section)
        parser.set(section, key, value)
        overridden.add((section, parser.optionxform(key)))
    return _Reader(root.resolve(), parser, key_lines(text), overridden, text).config()


# How close an undeclared tab's name must be to a framework's to be reported as its typo:
# `pytroch` (0.86) and `torch` (0.83) are; `python` (0.62 to `pytorch`) is not.
TYPO_CUTOFF = 0.8


@dataclass
class _Reader:
    """One reading of a parsed ``config.ini``; collects its warnings."""

    root: Path
    parser: configparser.ConfigParser
    lines: dict[tuple[str, str], int]
    overridden: set[tuple[str, str]]
    text: str = ""  # config.ini as written
    warnings: list[Diagnostic] = field(default_factory=list)
    errors: list[PolybookError] = field(default_factory=list)  # all reported at once

    def config(self) -> BookConfig:
        self._check_names()
        self.warnings += presented_warnings(self.parser, self.text, self.root, self._where)
        sections: dict[str, Any] = {
            section.SECTION: section(**{k.name: self._value(k) for k in declared_keys(section)})
            for section in SECTIONS
        }
        build: BuildSection = sections["build"]
        if not sections["project"].bibfile and sections["pdf"].bibfile:  # d2lbook's name
            sections["project"] = replace(sections["project"], bibfile=sections["pdf"].bibfile)
        for name in ("colab", "sagemaker"):
            sections[name] = self._published(sections[name], sections["project"])
            if self.errors:
                break
        declared = self._frameworks()
        self._check_tabs(build.tabs, declared)
        self._check_requirements(build.requirements, build.tabs)
        libraries = MappingProxyType(self._libraries(declared, build.tabs))
        env_settings = MappingProxyType(self._env_settings(build.tabs))
        settings = read_executor_settings(self.parser, build, self._value, self._warn)
        raise_all(self.errors)
        return BookConfig(
            root=self.root,
            libraries=libraries,
            frameworks=MappingProxyType(declared),
            env_settings=env_settings,
            executor_settings=MappingProxyType(settings),
            editions=read_editions(self.parser, self.root, self._value, self.lines),
            ignored=tuple(self.warnings),
            **sections,
        )

    def _published(
        self, platform: ColabSection | SagemakerSection, project: ProjectSection
    ) -> ColabSection | SagemakerSection:
        """``[colab]`` or ``[sagemaker]``: without a ``github_repo`` of its own, the book's
        repository (``[project] repository``), on its ``notebooks_branch``."""
        if project.repository and not REPOSITORY.match(project.repository):
            message = f"[project] repository: {project.repository!r} is not `owner/name`"
            self._fail(self._where("project", "repository"), message)
            return platform
        if platform.github_repo or not project.repository:
            return platform
        named = self.parser.has_option(platform.SECTION, "branch")
        branch = platform.branch if named else project.notebooks_branch
        return replace(platform, github_repo=(project.repository,), branch=branch)

    def _where(self, section: str, key: str = "") -> Location:
        if (section, key) in self.overridden:
            return Location(COMMAND_LINE)
        return Location(CONFIG_FILE, self.lines.get((section, key), 0))

    def _warn(self, section: str, key: str, message: str) -> None:
        self.warnings.append(Diagnostic(self._where(section, key), message, "config"))

    def _fail(self, where: Location, message: str, subtype: str = "config") -> None:
        self.errors.append(PolybookError(where, message, subtype))

    def _value(self, key: Key, section: str = "") -> Value:
        section = section or key.section
        if not self.parser.has_option(section, key.name):
            return key.default
        try:
            value = key.parse(self.parser.get(section, key.name))
        except BadValue as exc:
            self._fail(self._where(section, key.name), f"[{section}] {key.name}: {exc}")
            return key.default
        return key.resolve(value, self.root)

    def _frameworks(self) -> dict[str, Framework]:
        """The built-in declarations, with the book's ``[framework-<name>]`` over them."""
        declared = dict(SHIPPED)
        for section in self.parser.sections():
            name = section.removeprefix(frameworks.SECTION_PREFIX)
            if not section.startswith(frameworks.SECTION_PREFIX):
                continue
            if not name.isidentifier():
                message = f"[{section}]: {name!r} is not a framework name (letters, digits, _)"
                self._fail(self._where(section), message)
                continue
            keys = keys_of(FRAMEWORK_SECTION)
            values = {
                k.name: self._value(k, section)
                for k in keys
                if self.parser.has_option(section, k.name)
            }
            self._check_declaration(section, values)
            declared[name] = declare(name, values, declared.get(name))
        return declared

    def _check_declaration(self, section: str, values: Mapping[str, Value]) -> None:
        for key, message in declaration_problems(section, values):
            self._fail(self._where(section, key), message)

    def _check_tabs(self, tabs: tuple[str, ...], declared: Mapping[str, Framework]) -> None:
        """A tab that is no declared framework but very close to one is likely a typo (a tab
        is a label in d2lbook: `python` is no misspelt `pytorch`)."""
        for tab in tabs:
            close = nearest(tab, declared, cutoff=TYPO_CUTOFF)
            if tab not in declared and close:
                message = (
                    f"tab {tab!r} is not a declared framework; did you mean {close!r}? (an"
                    " undeclared tab runs in the default Python environment: declare"
                    f" [framework-{tab}] to give it its own)"
                )
                self._warn("build", "tabs", message)

    def _check_requirements(self, words: tuple[str, ...], tabs: tuple[str, ...]) -> None:
        """Each ``[build] requirements`` file exists and pins every package it names."""
        where = self._where("build", "requirements")
        for word in words:
            tab, _, name = word.rpartition(":")
            if tab and tab not in tabs:
                listed = ", ".join(tabs)
                message = f"[build] requirements: {tab!r} is not one of the tabs ({listed})"
                self._fail(where, message + did_you_mean(tab, tabs))
                continue
            path = self.root / name
            if not self._inside(path):
                continue  # not read: the confinement check reports it at its line
            if not path.is_file():
                self._fail(where, f"[build] requirements: no file {name!r} in the book")
                continue
            try:
                unpinned_requirement(path)
            except PolybookError as err:
                self.errors.append(err)

    def _env_settings(self, tabs: tuple[str, ...]) -> dict[str, EnvSettings]:
        """``[env-<tab>]`` sections of the book's tabs (an existing Python's path is made
        absolute without resolving links: a venv's ``bin/python`` is one)."""
        by_name = {k.name: k for k in keys_of(ENV_SECTION)}
        found: dict[str, EnvSettings] = {}
        for section in self.parser.sections():
            tab = section.removeprefix("env-")
            if not section.startswith("env-") or tab not in tabs:
                continue
            python = str(self._value(by_name["python"], section))
            if python:
                python = os.path.abspath(self.root / Path(python).expanduser())
            install = bool(self._value(by_name["install_kernel"], section))
            line = self.lines.get((section, "python"), 0)
            found[tab] = EnvSettings(tab, python, install, line)
        return found

    def _libraries(
        self, declared: Mapping[str, Framework], tabs: tuple[str, ...]
    ) -> dict[str, LibraryTarget]:
        by_name = {k.name: k for k in keys_of(LIBRARY_SECTION)}
        targets: dict[str, LibraryTarget] = {}
        for section in self.parser.sections():
            tab = section.removeprefix("library-")
            if not section.startswith("library-") or tab not in {*declared, *tabs}:
                continue
            lib_file = str(self._value(by_name["lib_file"], section))
            module = frameworks.lookup(declared, tab).module
            lib_file = lib_file or default_library(tab, module).lib_file
            module = PurePosixPath(lib_file).stem  # what readers import
            aliases = self._aliases(section, by_name)
            targets[tab] = LibraryTarget(tab, module, lib_file, aliases)
        return targets

    def _aliases(self, section: str, by_name: Mapping[str, Key]) -> LibraryAliases:
        """d2lbook's alias keys of a ``[library-<tab>]`` section, as written."""
        keys = ("lib_name", "simple_alias", "fluent_alias", "alias", "reverse_alias")
        module, simple, fluent, verbatim, reverse = (
            str(self._value(by_name[k], section)) for k in keys
        )
        lines = {  # where each value's first line is: it may start below its key
            k: self.lines[(section, k)] + _leading_newlines(self.parser.get(section, k))
            for k in keys
            if (section, k) in self.lines
        }
        return LibraryAliases(module, simple, fluent, verbatim, reverse, MappingProxyType(lines))

    def _check_names(self) -> None:
        """Warn of sections and keys polybook does not read: d2lbook's (ignored, when set)
        and those known to neither (likely typos: the nearest known name is suggested)."""
        tabs = set(self._raw_words("build", "tabs"))
        tabs_key = next(k for k in KEYS if (k.section, k.name) == ("build", "tabs"))
        book_tabs = set(_as_words(self._value(tabs_key)))  # [env-<tab>] is for these
        named = {s.removeprefix(frameworks.SECTION_PREFIX) for s in self.parser.sections()}
        known = {*SHIPPED, *tabs, *named}
        for section in self.parser.sections():
            tab = section.removeprefix("library-")
            if section in D2LBOOK_SECTIONS:
                group = section
            elif section.startswith(frameworks.SECTION_PREFIX):
                group = FRAMEWORK_SECTION
            elif section.startswith("edition-"):
                group = EDITION_SECTION
            elif section.startswith("env-") and section.removeprefix("env-") in book_tabs:
                group = ENV_SECTION
            elif section.startswith("env-"):
                tab = section.removeprefix("env-")
                hint = did_you_mean(tab, book_tabs)
                self._warn(section, "", f"[{section}] is ignored: {tab!r} is not a tab{hint}")
                continue
            elif section.startswith("library-") and tab in known:
                group = LIBRARY_SECTION
            elif section.startswith("library-"):
                hint = did_you_mean(tab, known)
                message = f"[{section}] is ignored: unknown framework {tab!r}{hint}"
                self._warn(section, "", message)
                continue
            elif section.startswith(EXECUTOR_PREFIX) and unread_section(section):
                self._warn(section, "", unread_section(section))
                continue
            elif section in _SECTIONS or section.startswith(EXECUTOR_PREFIX):
                group = section
            else:
                sections = [
                    *_SECTIONS,
                    *D2LBOOK_SECTIONS,
                    *executor_sections(),
                    *(f"library-{f}" for f in sorted(known)),
                    *(f"framework-{f}" for f in sorted(known)),
                ]
                close = nearest(section, sections)
                hint = f"; did you mean [{close}]?" if close else ""
                self._warn(section, "", f"unknown section [{section}] is ignored{hint}")
                continue
            for key in self.parser.options(section):
                self._check_key(section, group, key)

    def _inside(self, path: Path) -> bool:
        """Whether ``path`` (links followed) lies in the book or a folder of ``allowed_paths``."""
        real, words = Path(os.path.realpath(path)), self._raw_words("build", "allowed_paths")
        return any(real.is_relative_to(os.path.realpath(self.root / f)) for f in ("", *words))

    def _raw_words(self, section: str, key: str) -> tuple[str, ...]:
        return split_words(self.parser.get(section, key, fallback=""))

    def _check_key(self, section: str, group: str, key: str) -> None:
        declared = (*KEYS, *executor_keys())
        implemented = [k.name for k in declared if k.section == group]
        d2lbook = D2LBOOK_IGNORED.get(group, ())
        if key in implemented:
            return
        if group in D2LBOOK_SECTIONS or key in d2lbook:
            if self.parser.get(section, key).strip():
                renamed = RENAMED.get((group, key))
                hint = f": {renamed}" if renamed else ""
                self._warn(section, key, f"[{section}] {key} is ignored{hint}")
            return
        elsewhere = [k.section for k in declared if k.name == key]
        close = nearest(key, [*implemented, *d2lbook])
        if elsewhere:
            hint = f"; it belongs in [{elsewhere[0]}]"
        elif close:
            hint = f"; did you mean `{close}`?"
        else:
            hint = ""
        self._warn(section, key, f"unknown key [{section}] {key} is ignored{hint}")


def _as_words(value: Value) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else ()


def _leading_newlines(raw: str) -> int:
    return len(raw) - len(raw.lstrip("\n"))
