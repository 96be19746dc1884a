"""The frameworks polybook knows, described as data.

A framework is a declaration: ``[framework-<name>]`` in a book's ``config.ini``, with the keys of
:data:`polybook.config.schema.FRAMEWORK_KEYS`. The five polybook ships are the same declarations,
in ``frameworks.ini`` beside this module; a book's section overrides them key by key. A tab with
no declaration is a label, as in d2lbook: it splits, extracts its library (``d2l/<tab>.py``),
renders, and runs in the default Python environment, which every such tab of a book shares.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from polybook.paths import REQUIREMENTS

SECTION_PREFIX = "framework-"
DEVICES = ("cpu", "cuda")
# The environment of the tabs no framework declares: hidden, so that no package's name is its
# name; a plain Python with ipykernel, and the book's ``[build] requirements``.
DEFAULT_ENVIRONMENT = ".default"
DEFAULT_REQUIREMENTS = REQUIREMENTS / "default" / "python.txt"


@dataclass(frozen=True)
class Framework:
    """Everything polybook needs to know about one deep-learning framework: beside its
    ``name``, a field per key of :data:`polybook.config.schema.FRAMEWORK_KEYS`, of the same
    name, holding the key's value as read (paths absolute)."""

    name: str
    display_name: str
    module: str  # the module it is imported as; the library module's default name
    distributions: tuple[str, ...] = ()  # pip names of its package, CPU and CUDA builds
    cpu_requirements: str = ""  # its pinned requirement file (absolute), "" for none
    cuda_requirements: str = ""  # on GPU hosts; "" for the CPU one
    kernel_env: tuple[str, ...] = ()  # NAME=VALUE, set in each kernel's environment
    gpu_patterns: tuple[str, ...] = ()  # regexes whose first group is a device index
    device_errors: tuple[str, ...] = ()  # regexes of its errors that say a device is missing
    output_noise: tuple[str, ...] = ()  # regexes of the log lines dropped from outputs
    gpu_share_env: tuple[str, ...] = ()  # NAME=VALUE, a kernel sharing its GPU: {fraction}
    declared: bool = True  # False: known only as a tab name, run in the default environment

    def kernel_variables(self) -> dict[str, str]:
        """The variables ``kernel_env`` sets, by name."""
        return variables(self.kernel_env)

    def share_env(self, share: int) -> dict[str, str]:
        """The variables of a kernel whose GPU ``share`` notebooks share (none alone)."""
        if share <= 1:
            return {}
        fraction = f"{0.9 / share:.3f}"  # what the others and the driver leave it
        shared = variables(self.gpu_share_env)
        return {k: v.replace("{fraction}", fraction) for k, v in shared.items()}

    @property
    def import_line(self) -> str:
        """How a reader imports the book's library for this framework."""
        return f"from d2l import {self.module} as d2l"

    @property
    def kernel_name(self) -> str:
        return f"polybook-{self.name}"

    @property
    def environment_name(self) -> str:
        """The name of the environment its notebooks run in: its own, or the default one
        that the tabs no framework declares share."""
        return self.name if self.declared else DEFAULT_ENVIRONMENT

    @property
    def imported_module(self) -> str:
        """The module its environment must import ("" for an undeclared tab: none)."""
        return self.module if self.declared else ""

    def requirements(self, device: str) -> Path:
        """The pinned requirement file of ``device``'s environment (absolute): the CPU set
        when the declaration names none for ``device``; it may not exist when it names none."""
        files = {"cpu": self.cpu_requirements, "cuda": self.cuda_requirements}
        found = files.get(device) or self.cpu_requirements
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
    default = str(DEFAULT_REQUIREMENTS)
    return Framework(name, name, name, (), default, default, declared=False)


def variables(words: tuple[str, ...]) -> dict[str, str]:
    """The variables of a ``NAME=VALUE`` key's value (checked as it was read), by name."""
    return {name: value for name, _, value in (word.partition("=") for word in words)}


def lookup(declared: Mapping[str, Framework], name: str) -> Framework:
    """The framework ``name`` as declared, else as an undeclared tab."""
    return declared.get(name) or undeclared(name)
