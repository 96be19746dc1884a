"""The book's library as a Python package: an sdist and a wheel built with hatchling.

What the package needs is read from the library's own imports: a package that every
framework environment pins (numpy, matplotlib) is a dependency bounded below by its lowest
pin; one that only some pin (torch, jax and flax, …) goes into that framework's extra,
``d2l[torch]``, bounded below by its pin. Imports guarded by ``except ImportError`` (IPython)
are optional and not declared. Nothing is bounded above. ``Requires-Python`` is the oldest
Python whose grammar reads the library and that every pinned dependency supports (as its
metadata in the environment says), so that ``pip`` never installs the package where the
versions the book was built with cannot be.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from polybook import frameworks
from polybook.config import BookConfig
from polybook.config.requirements import normalized_pin, pins
from polybook.diagnostics import Location, PolybookError
from polybook.frameworks import Framework
from polybook.layout import EnvsFolder

if TYPE_CHECKING:
    pass

OLDEST_PYTHON = 8  # 3.8: the oldest grammar ast can check the library against
NEWEST_PYTHON = 40  # the last minor version a Requires-Python is tried against
OPTIONAL = ("ImportError", "ModuleNotFoundError", "Exception")


@dataclass(frozen=True)
class Requirement:
    """A distribution the library needs, and the version the build's environments pin."""

    name: str
    version: str = ""  # the (lowest) pinned version; "" when no environment pins it

    @property
    def at_least(self) -> str:
        return f"{self.name}>={self.version}" if self.version else self.name


@dataclass(frozen=True)
class PackageSpec:
    """What the package is: its name, version, Python, dependencies and per-framework extras."""

    name: str  # the import package (``d2l``)
    version: str
    source: Path  # the package folder in the book
    modules: dict[str, str]  # framework -> module file name (``torch.py``)
    requires_python: str
    dependencies: tuple[Requirement, ...]
    extras: dict[str, tuple[Requirement, ...]] = field(default_factory=dict)  # by framework
    # framework -> the modules its extra installs (the library's imports among them)
    extra_modules: dict[str, frozenset[str]] = field(default_factory=dict)

    def extra_name(self, framework: str) -> str:
        return PurePosixPath(self.modules[framework]).stem


def package_folder(config: BookConfig) -> PurePosixPath:
    """The library's package folder (``d2l``), which every framework's module must share."""
    folders = {PurePosixPath(config.library_for(fw).lib_file).parent for fw in config.build.tabs}
    if len(folders) != 1 or next(iter(folders)) == PurePosixPath("."):
        where = Location("config.ini")
        message = "the libraries' lib_file must all lie in one package folder, e.g. d2l/"
        raise PolybookError(where, message, "dist")
    return next(iter(folders))


def imports(source: str) -> tuple[set[str], set[str]]:
    """Top-level module names ``source`` imports: (required, optional); stdlib left out.

    A module imported anywhere under ``try: … except ImportError`` is optional.
    """
    tree = ast.parse(source)
    required: set[str] = set()
    optional: set[str] = set()

    def names(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name.split(".")[0] for a in node.names}
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            return {node.module.split(".")[0]}
        return set()

    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import(h) for h in node.handlers):
            for inner in node.body:
                for sub in ast.walk(inner):
                    optional |= names(sub)
        required |= names(node)
    stdlib = set(sys.stdlib_module_names)
    return required - optional - stdlib, optional - stdlib


def _catches_import(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(isinstance(k, ast.Name) and k.id in OPTIONAL for k in kinds)


@functools.cache
def distribution_of(module: str, framework: str, envs: EnvsFolder) -> str:
    """The distribution that installs ``module`` in the framework's environment: the one of
    that name, else the one whose files hold it (``tensorflow`` -> ``tensorflow_cpu``);
    ``module`` itself when the environment is not set up or none does."""
    site = [
        found
        for env in envs.candidates(framework)
        for found in sorted(env.glob("lib/python*/site-packages"))
    ]
    infos = sorted(site[0].glob("*.dist-info")) if site else []
    names = {i.name.removesuffix(".dist-info").rpartition("-")[0]: i for i in infos}
    if _pin_name(module) in {_pin_name(n) for n in names}:
        return module
    # Names that start with the module's first: they are the likely owners.
    for name in sorted(names, key=lambda n: (not n.lower().startswith(module.lower()), n)):
        if module in _top_level(names[name]):
            return name
    return module


def _top_level(info: Path) -> set[str]:
    top = info / "top_level.txt"
    if top.is_file():
        return set(top.read_text(encoding="utf-8").split())
    record = info / "RECORD"
    lines = record.read_text(encoding="utf-8").splitlines() if record.is_file() else []
    found = {PurePosixPath(x.split(",")[0]).parts[0] for x in lines if x}
    return {m.removesuffix(".py") for m in found if ".dist-info" not in m}


def _pin_name(name: str) -> str:
    """``tensorflow_cpu`` -> ``tensorflow``: a distribution as the pins name it."""
    return normalized_pin(f"{name}==0").partition("==")[0]


def cpu_pins(framework: str | Framework) -> dict[str, str]:
    """Distribution -> version of the framework's pinned CPU set ({} when it has none)."""
    path = _declared(framework).requirements("cpu")
    if not path.is_file():
        return {}
    return dict(p.partition("==")[::2] for p in pins(path))


def _declared(framework: str | Framework) -> Framework:
    if isinstance(framework, Framework):
        return framework
    return frameworks.lookup(frameworks.REGISTRY, framework)


def requirement_line(framework: str | Framework, name: str, device: str) -> str:
    """``name``'s exact pin: as the CUDA set spells it (``jax[cuda12]==…``), or by its plain
    name (``tensorflow==…``, not the CPU set's ``tensorflow_cpu``)."""
    if device == "cpu":
        return f"{name}=={cpu_pins(framework)[name]}"
    path = _declared(framework).requirements(device)
    for line in path.read_text(encoding="utf-8").splitlines():
        pin = line.strip() and not line.lstrip().startswith("#")
        if pin and normalized_pin(line).partition("==")[0] == name:
            return line.strip()
    return f"{name}=={cpu_pins(framework)[name]}"


def _python_floor(sources: list[str], pinned: int = 0) -> str:
    """The oldest Python 3 whose grammar accepts every module, and no older than ``pinned``
    (what the pinned dependencies need)."""
    for minor in range(max(OLDEST_PYTHON, pinned), sys.version_info.minor + 1):
        try:
            for text in sources:
                ast.parse(text, feature_version=(3, minor))
        except SyntaxError:
            continue
        return f">=3.{minor}"
    return f">=3.{max(sys.version_info.minor, pinned)}"


def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _python_of(requirement: Requirement, framework: str, envs: EnvsFolder) -> int:
    """The oldest Python 3 minor version the pinned distribution supports, as its metadata
    in the framework's environment says (0 when it says nothing, or is not there)."""
    places = envs.candidates(framework)
    site = sorted(p for env in places for p in env.glob("lib/python*/site-packages"))
    for info in sorted(site[0].glob("*.dist-info")) if site and requirement.version else []:
        name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
        if _dist_name(name) != _dist_name(requirement.name):
            continue
        with contextlib.suppress(InvalidVersion):
            if Version(version).public != Version(requirement.version).public:
                continue
        return _oldest_minor((info / "METADATA").read_text(encoding="utf-8", errors="replace"))
    return 0


def _oldest_minor(metadata: str) -> int:
    """The oldest Python 3 minor version a ``Requires-Python`` accepts (0: any, or none)."""
    spec = next(
        (
            line.partition(":")[2].strip()
            for line in metadata.splitlines()
            if line.startswith("Requires-Python:")
        ),
        "",
    )
    try:
        accepted = SpecifierSet(spec)
    except InvalidSpecifier:
        return 0
    for minor in range(OLDEST_PYTHON, NEWEST_PYTHON + 1):
        if any(accepted.contains(f"3.{minor}.{patch}") for patch in (0, 99)):
            return minor
    return 0


def _python_floor_of_pins(
    pins: dict[str, dict[str, str]], wanted: list[Requirement], envs: EnvsFolder
) -> int:
    """The newest of the oldest Pythons the package's pinned dependencies support: what a
    reader's Python must be for ``pip`` to install what the book was built with."""
    floor = 0
    for requirement in wanted:
        for framework, pinned in pins.items():
            if pinned.get(requirement.name) == requirement.version:
                floor = max(floor, _python_of(requirement, framework, envs))
                break
    return floor


def package_spec(config: BookConfig, tabs: tuple[str, ...] = ()) -> PackageSpec:
    """The package the library files of ``tabs`` (default: the book's) make, read from disk
    as the build wrote them. A framework's extra always holds the framework itself."""
    folder = package_folder(config)
    named = {*config.build.tabs, *tabs, *frameworks.REGISTRY}
    pins = {fw: cpu_pins(config.framework(fw)) for fw in sorted(named)}
    shared = set.intersection(*(set(p) for p in pins.values() if p))
    modules: dict[str, str] = {}
    sources: list[str] = []
    base: dict[str, Requirement] = {}
    extras: dict[str, tuple[Requirement, ...]] = {}
    extra_modules: dict[str, frozenset[str]] = {}
    for fw in tabs or config.build.tabs:
        path = config.root / config.library_for(fw).lib_file
        if not path.is_file():
            message = f"no library file for {fw}: `polybook build lib` writes it"
            raise PolybookError(Location(str(path)), message, "dist")
        text = path.read_text(encoding="utf-8")
        modules[fw] = path.name
        sources.append(text)
        required, _ = imports(text)
        framework = config.framework(fw)
        own = [Requirement(n, pins[fw][n]) for n in framework.distribution if n in pins[fw]]
        own_modules = {framework.lib_name, *(r.name.replace("-", "_") for r in own)}
        for module in sorted(required - {folder.name}):
            name = _pin_name(distribution_of(module, fw, config.envs))
            if name in shared:
                lowest = min((p[name] for p in pins.values()), key=Version)
                base[name] = Requirement(name, lowest)
            elif name in pins[fw]:
                own_modules.add(module)
                if Requirement(name, pins[fw][name]) not in own:
                    own.append(Requirement(name, pins[fw][name]))
            else:  # pinned by no environment: declared, unbounded
                base.setdefault(name, Requirement(name))
        extras[fw] = tuple(own)
        extra_modules[fw] = frozenset(own_modules)
    init = config.root / folder / "__init__.py"
    if init.is_file():
        sources.append(init.read_text(encoding="utf-8"))
    declared = [*base.values(), *(r for own in extras.values() for r in own)]
    return PackageSpec(
        name=folder.name,
        version=config.project.release,
        source=config.root / folder,
        modules=modules,
        requires_python=_python_floor(sources, _python_floor_of_pins(pins, declared, config.envs)),
        dependencies=tuple(base[n] for n in sorted(base)),
        extras=extras,
        extra_modules=extra_modules,
    )
