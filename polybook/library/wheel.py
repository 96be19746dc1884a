"""The library's wheel and sdist, built with hatchling from the files the library stage
wrote (:mod:`polybook.library.package_spec` says what the package is), and the wheel the site and
the students' notebooks publish: rebuilt only when what it is made from changed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from polybook.config import Book
from polybook.config.schema import LibrarySection, ProjectSection
from polybook.config.schema.key import DIST_NAME
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.fsutil import write_atomic
from polybook.library.package_spec import PackageSpec, package_spec

if TYPE_CHECKING:
    from polybook.library.stage import Library

# The generated pyproject's backend, its PEP 517 hooks called in the package's folder.
BUILD_HOOKS = (
    "import sys, hatchling.build as backend; "
    "backend.build_sdist(sys.argv[1]); backend.build_wheel(sys.argv[1])"
)


def distribution(library: LibrarySection, package: str) -> str:
    """The library's distribution name: ``[library] package`` (checked as it is read),
    else the import package's (``package``); an invalid one is an error at ``config.ini``."""
    name = library.package or package
    if not DIST_NAME.match(name):
        message = f"[library] package: {name!r} is not a distribution name (letters, digits, -_.)"
        raise PolybookError(Location("config.ini"), message, "config")
    return name


def wheel_name(dist_name: str, version: str) -> str:
    """The file name hatchling gives the wheel of ``dist_name`` at ``version``."""
    with contextlib.suppress(InvalidVersion):
        version = str(Version(version))
    escaped = re.sub(r"[-_.]+", "_", dist_name).lower()
    return f"{escaped}-{version}-py3-none-any.whl"


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def pyproject(spec: PackageSpec, project: ProjectSection, library: LibrarySection) -> str:
    """The generated ``pyproject.toml`` (hatchling, no framework as a hard dependency)."""
    first = f"{spec.extra_name(next(iter(spec.modules)))} as d2l"
    lines = [
        "[build-system]",
        'requires = ["hatchling"]',
        'build-backend = "hatchling.build"',
        "",
        "[project]",
        f"name = {json.dumps(distribution(library, spec.name))}",
        f"version = {json.dumps(spec.version)}",
        "description = "
        + json.dumps(f"The library of the book {project.title}: from {spec.name} import {first}"),
        f"requires-python = {json.dumps(spec.requires_python)}",
        f"dependencies = {_toml_list([r.at_least for r in spec.dependencies])}",
    ]
    if project.author:
        lines.append(f"authors = [{{name = {json.dumps(project.author)}}}]")
    lines += ["", "[project.optional-dependencies]"]
    for fw, requirements in spec.extras.items():
        lines.append(f"{spec.extra_name(fw)} = {_toml_list([r.at_least for r in requirements])}")
    lines += ["", "[tool.hatch.build.targets.wheel]", f"packages = [{json.dumps(spec.name)}]"]
    return "\n".join(lines) + "\n"


def _stage(
    spec: PackageSpec, project: ProjectSection, library: LibrarySection, folder: Path
) -> None:
    """The package's source tree: the generated pyproject and the library's modules."""
    package = folder / spec.name
    package.mkdir(parents=True)
    init = spec.source / "__init__.py"
    (package / "__init__.py").write_bytes(init.read_bytes() if init.is_file() else b"")
    for module in spec.modules.values():
        shutil.copyfile(spec.source / module, package / module)
    (folder / "pyproject.toml").write_text(pyproject(spec, project, library), encoding="utf-8")


def build_dist(
    library: Library, book: Book, section: LibrarySection, reporter: Reporter
) -> list[Path]:
    """The library's package, as :func:`write_dist` builds it from the files the library
    stage wrote (``section``: the book's ``[library]``); an error is reported and nothing
    is written."""
    try:
        return write_dist(book, section, reporter)
    except PolybookError as err:
        reporter.error(err)
        return []


def write_dist(
    book: Book, library: LibrarySection, reporter: Reporter, spec: PackageSpec | None = None
) -> list[Path]:
    """Build ``_build/dist/<name>-<release>.tar.gz`` and its wheel; returns their paths.

    Built without isolation (the backend is in polybook's own environment), so nothing is
    downloaded; ``SOURCE_DATE_EPOCH`` makes an unchanged library give identical files.
    hatchling's build hooks run in one process (a build frontend runs each in its own:
    the same files, in a quarter of the CPU).
    """
    if not book.project.release:
        where = Location("config.ini")
        message = "[project] release is empty: it is the version of the package"
        raise PolybookError(where, message, "dist")
    spec = spec or package_spec(book)
    out = book.layout.dist
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".build-") as work:
        source, built = Path(work) / "src", Path(work) / "out"
        _stage(spec, book.project, library, source)
        environ = {**os.environ, "SOURCE_DATE_EPOCH": "315532800"}  # 1980, zip's least
        done = subprocess.run(
            [sys.executable, "-c", BUILD_HOOKS, str(built)],
            cwd=source,
            capture_output=True,
            text=True,
            check=False,
            env=environ,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            message = f"building the {spec.name} package failed:\n{tail}"
            raise PolybookError(Location(str(spec.source)), message, "dist")
        written = []
        for artifact in sorted(built.iterdir()):
            target = out / artifact.name
            write_atomic(target, artifact.read_bytes())
            written.append(target)
    escaped = wheel_name(distribution(library, spec.name), "0").partition("-")[0]
    for old in [*out.glob(f"{escaped}-*.whl"), *out.glob(f"{escaped}-*.tar.gz")]:
        if old not in written:
            old.unlink()
    for warning in _unpinned(spec):
        reporter.warn(Location(str(spec.source)), warning, "dist")
    return written


def _unpinned(spec: PackageSpec) -> list[str]:
    return [
        f"the library imports {r.name}, which no framework environment pins: declared"
        " without a version"
        for r in spec.dependencies
        if not r.version
    ]


def _inputs_digest(spec: PackageSpec, project: ProjectSection, library: LibrarySection) -> str:
    """What the package's files are made from: its pyproject and its modules."""
    digest = hashlib.sha256(pyproject(spec, project, library).encode())
    for name in ["__init__.py", *spec.modules.values()]:
        path = spec.source / name
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b""))
    return digest.hexdigest()


def current_wheel(book: Book, library: LibrarySection, reporter: Reporter) -> Path | None:
    """The library's wheel in ``_build/dist``, built again only when its pyproject or its
    modules changed since it was; None without ``[project] release`` (nothing to version
    it by) or where it cannot be built (reported as a warning: the book builds on)."""
    if not book.project.release:
        return None
    try:
        spec = package_spec(book)
        target = book.layout.dist / wheel_name(distribution(library, spec.name), spec.version)
        stamp = book.layout.dist_stamp
        digest = _inputs_digest(spec, book.project, library)
        if target.is_file() and stamp.is_file() and stamp.read_text() == digest:
            return target
        write_dist(book, library, reporter, spec)
        if not target.is_file():
            raise PolybookError(Location(str(book.layout.dist)), f"no {target.name}", "dist")
    except PolybookError as err:
        message = f"the library's wheel is not published: {err.diagnostic.message}"
        reporter.warn(err.location, message, "dist")
        return None
    write_atomic(stamp, digest)
    return target


def publish_wheel(folder: Path, wheel: Path | None) -> bool:
    """``wheel`` in ``folder``, the only wheel there (none where ``wheel`` is None); True
    if anything changed."""
    changed = write_atomic(folder / wheel.name, wheel.read_bytes()) if wheel else False
    for old in folder.glob("*.whl") if folder.is_dir() else ():
        if wheel is None or old.name != wheel.name:
            old.unlink()
            changed = True
    return changed
