"""The frameworks polybook knows, described as data.

A framework is a declaration: ``[framework-<name>]`` in a book's ``config.ini``, with the keys of
:data:`polybook.config.schema.FRAMEWORK_KEYS`. The five polybook ships are the same declarations,
in ``frameworks.ini`` beside this module; a book's section overrides them key by key. A tab with
no declaration is a label, as in d2lbook: it splits, extracts its library (``d2l/<tab>.py``),
renders, and runs in the default Python environment, which every such tab of a book shares.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from polybook.paths import PACKAGE_ROOT, REQUIREMENTS

SECTION_PREFIX = "framework-"
DEVICES = ("cpu", "cuda")
# The environment of the tabs no framework declares: hidden, so that no package's name is its
# name; a plain Python with ipykernel, and the book's ``[build] requirements``.
DEFAULT_ENVIRONMENT = ".default"
DEFAULT_REQUIREMENTS = REQUIREMENTS / "default" / "python.txt"


@dataclass(frozen=True)
class Framework:
    """Everything polybook needs to know about one deep-learning framework."""

    name: str
    display_name: str
    lib_name: str  # the module it is imported as; the library module's default name
    distribution: tuple[str, ...] = ()  # pip names of its package, CPU and CUDA builds
    kernel_variables: tuple[tuple[str, str], ...] = ()  # set in each kernel's environment
    requirement_files: tuple[tuple[str, str], ...] = ()  # (device, absolute path)
    gpu_patterns: tuple[str, ...] = ()  # regexes whose first group is a device index
    device_errors: tuple[str, ...] = ()  # regexes of its errors that say a device is missing
    output_noise: tuple[str, ...] = ()  # regexes of the log lines dropped from outputs
    share_variables: tuple[tuple[str, str], ...] = ()  # a kernel sharing its GPU: {fraction}
    declared: bool = True  # False: known only as a tab name, run in the default environment

    @property
    def kernel_env(self) -> dict[str, str]:
        return dict(self.kernel_variables)

    def share_env(self, share: int) -> dict[str, str]:
        """The variables of a kernel whose GPU ``share`` notebooks share (none alone)."""
        if share <= 1:
            return {}
        fraction = f"{0.9 / share:.3f}"  # what the others and the driver leave it
        return {k: v.replace("{fraction}", fraction) for k, v in self.share_variables}

    @property
    def import_line(self) -> str:
        """How a reader imports the book's library for this framework."""
        return f"from d2l import {self.lib_name} as d2l"

    @property
    def kernel_name(self) -> str:
        return f"polybook-{self.name}"

    @property
    def environment_name(self) -> str:
        """The name of the environment its notebooks run in: its own, or the default one
        that the tabs no framework declares share."""
        return self.name if self.declared else DEFAULT_ENVIRONMENT

    @property
    def module(self) -> str:
        """The module its environment must import ("" for an undeclared tab: none)."""
        return self.lib_name if self.declared else ""

    def requirements(self, device: str) -> Path:
        """The pinned requirement file of ``device``'s environment (absolute): the CPU set
        when the declaration names none for ``device``; it may not exist when it names none."""
        files = dict(self.requirement_files)
        found = files.get(device) or files.get("cpu", "")
        return Path(found) if found else REQUIREMENTS / device / f"{self.name}.txt"

    def device_indices(self, code: str) -> list[int]:
        """Device indices ``code`` names in this framework's own conventions."""
        found: list[int] = []
        for pattern in self.gpu_patterns:
            found += [int(m.group(1)) for m in re.finditer(pattern, code) if m.group(1)]
        return found


def undeclared(name: str) -> Framework:
    """A tab the book uses without declaring it: named after the tab, its library module
    too, run in the default environment."""
    default = tuple((device, str(DEFAULT_REQUIREMENTS)) for device in DEVICES)
    return Framework(name, name, name, requirement_files=default, declared=False)


def declare(
    name: str, values: Mapping[str, object], base: Path, inherit: Framework | None = None
) -> Framework:
    """A framework from a ``[framework-<name>]`` section's parsed ``values`` (set keys only),
    over ``inherit``'s; relative paths are resolved against ``base``."""
    fw = inherit or Framework(name, name, name, (name,))
    module = str(values.get("module", "")) or fw.lib_name
    changes: dict[str, object] = {"declared": True, "lib_name": module}
    if "display_name" in values:
        changes["display_name"] = str(values["display_name"])
    if "distributions" in values:
        changes["distribution"] = tuple(str(v).lower() for v in _words(values["distributions"]))
    elif "module" in values and inherit is None:
        changes["distribution"] = (module,)
    if "kernel_env" in values:
        pairs = (str(w).partition("=") for w in _words(values["kernel_env"]))
        changes["kernel_variables"] = tuple((k, v) for k, _, v in pairs)
    if "gpu_patterns" in values:
        changes["gpu_patterns"] = tuple(str(w) for w in _words(values["gpu_patterns"]))
    if "device_errors" in values:
        changes["device_errors"] = tuple(str(w) for w in _words(values["device_errors"]))
    if "output_noise" in values:
        changes["output_noise"] = tuple(str(w) for w in _words(values["output_noise"]))
    if "gpu_share_env" in values:
        pairs = (str(w).partition("=") for w in _words(values["gpu_share_env"]))
        changes["share_variables"] = tuple((k, v) for k, _, v in pairs)
    files = dict(fw.requirement_files)
    for device in DEVICES:
        given = str(values.get(f"{device}_requirements", ""))
        if given:
            files[device] = str((base / Path(given).expanduser()).resolve())
    changes["requirement_files"] = tuple(sorted(files.items()))
    return replace(fw, **changes)  # type: ignore[arg-type]


def _words(value: object) -> tuple[object, ...]:
    return value if isinstance(value, tuple) else tuple(str(value).replace(",", " ").split())


def _shipped() -> Mapping[str, Framework]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(PACKAGE_ROOT / "frameworks.ini", encoding="utf-8")
    found: dict[str, Framework] = {}
    for section in parser.sections():
        name = section.removeprefix(SECTION_PREFIX)
        found[name] = declare(name, dict(parser.items(section)), PACKAGE_ROOT)
    return MappingProxyType(found)


# The built-in declarations; a book's are in BookConfig.frameworks.
REGISTRY: Mapping[str, Framework] = _shipped()


def get(name: str) -> Framework:
    """The built-in framework called ``name`` (KeyError if unknown)."""
    return REGISTRY[name]


def lookup(declared: Mapping[str, Framework], name: str) -> Framework:
    """The framework ``name`` as declared, else as an undeclared tab."""
    return declared.get(name) or undeclared(name)
