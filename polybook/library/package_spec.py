"""The book's library as a Python package: what its ``pyproject.toml`` declares (name,
version, ``Requires-Python``, dependencies and per-framework extras), which
:mod:`polybook.library.wheel` writes and builds with hatchling.

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
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from polybook.config import Book
from polybook.config.declarations import SHIPPED
from polybook.diagnostics import Location, PolybookError
from polybook.layout import EnvsFolder
from polybook.library.installed import distribution_of, installed_metadata
from polybook.library.module_imports import imports
from polybook.library.pins import cpu_pins, pin_name
from polybook.memo import memoised

OLDEST_PYTHON = 8  # 3.8: the oldest grammar ast can check the library against
NEWEST_PYTHON = 40  # the last minor version a Requires-Python is tried against


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


def package_folder(book: Book) -> PurePosixPath:
    """The library's package folder (``d2l``), which every framework's module must share."""
    folders = {PurePosixPath(book.library_for(fw).lib_file).parent for fw in book.tabs}
    if len(folders) != 1 or next(iter(folders)) == PurePosixPath("."):
        where = Location("config.ini")
        message = "the libraries' lib_file must all lie in one package folder, e.g. d2l/"
        raise PolybookError(where, message, "dist")
    return next(iter(folders))


@memoised(16)  # the library's files, read again by each rebuild
def _python_floor(sources: tuple[str, ...], pinned: int = 0) -> str:
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


def _python_of(requirement: Requirement, framework: str, envs: EnvsFolder) -> int:
    """The oldest Python 3 minor version the pinned distribution supports, as its metadata
    in the framework's environment says (0 when it says nothing, or is not there)."""
    metadata = installed_metadata(requirement.name, requirement.version, framework, envs)
    return 0 if metadata is None else _oldest_minor(metadata)


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


def package_spec(book: Book, tabs: tuple[str, ...] = ()) -> PackageSpec:
    """The package the library files of ``tabs`` (default: the book's) make, read from disk
    as the build wrote them. A framework's extra always holds the framework itself."""
    folder = package_folder(book)
    named = {*book.tabs, *tabs, *SHIPPED}
    pins = {fw: cpu_pins(book.framework(fw)) for fw in sorted(named)}
    # What every framework pins (the default environment of undeclared tabs pins none).
    declared = [set(p) for fw, p in pins.items() if p and book.framework(fw).declared]
    shared = set.intersection(*declared)
    modules: dict[str, str] = {}
    sources: list[str] = []
    base: dict[str, Requirement] = {}
    extras: dict[str, tuple[Requirement, ...]] = {}
    extra_modules: dict[str, frozenset[str]] = {}
    for fw in tabs or book.tabs:
        path = book.root / book.library_for(fw).lib_file
        if not path.is_file():
            message = f"no library file for {fw}: `polybook build lib` writes it"
            raise PolybookError(Location(str(path)), message, "dist")
        text = path.read_text(encoding="utf-8")
        modules[fw] = path.name
        sources.append(text)
        required, _ = imports(text)
        framework = book.framework(fw)
        own = [Requirement(n, pins[fw][n]) for n in framework.distributions if n in pins[fw]]
        own_modules = {framework.module, *(r.name.replace("-", "_") for r in own)}
        for module in sorted(required - {folder.name}):
            if module == framework.module and own:
                continue  # the framework, its extra's already (paddle: paddlepaddle)
            name = pin_name(distribution_of(module, fw, book.envs))
            if name in shared:
                lowest = min((p[name] for p in pins.values() if name in p), key=Version)
                base[name] = Requirement(name, lowest)
            elif name in pins[fw]:
                own_modules.add(module)
                if Requirement(name, pins[fw][name]) not in own:
                    own.append(Requirement(name, pins[fw][name]))
            else:  # pinned by no environment: declared, unbounded
                base.setdefault(name, Requirement(name))
        extras[fw] = tuple(own)
        extra_modules[fw] = frozenset(own_modules)
    init = book.root / folder / "__init__.py"
    if init.is_file():
        sources.append(init.read_text(encoding="utf-8"))
    listed = [*base.values(), *(r for own in extras.values() for r in own)]
    return PackageSpec(
        name=folder.name,
        version=book.project.release,
        source=book.root / folder,
        modules=modules,
        requires_python=_python_floor(
            tuple(sources), _python_floor_of_pins(pins, listed, book.envs)
        ),
        dependencies=tuple(base[n] for n in sorted(base)),
        extras=extras,
        extra_modules=extra_modules,
    )
