"""Whether a requirement that the students' notebooks install from the package index can
work: the version is there, and its distribution is this book's library (its top-level
modules hold the library's package, whose modules define every name the book saves).

The index is asked through pip in a subprocess (``pip download --no-deps``), so that pip's
own configuration (index URLs, find-links, certificates, proxies) is honoured; where the
index cannot be reached the answer is "not checked", never a guess.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from packaging.requirements import InvalidRequirement, Requirement

OK, MISSING, ABSENT, OTHER, UNCHECKED = "ok", "missing", "absent", "other", "unchecked"
TIMEOUT = 60  # seconds for one question to the index
UNREACHABLE = re.compile(
    r"NewConnectionError|Max retries exceeded|Could not fetch URL|name resolution|"
    r"ConnectTimeout|ReadTimeout|ProxyError|SSLError|Network is unreachable|timed out",
    re.IGNORECASE,
)
VERSIONS = re.compile(r"\(from versions: ([^)]*)\)")
SHOWN = 5  # names or versions a message lists


@dataclass(frozen=True)
class IndexCheck:
    """What the index holds for a requirement: ``state`` (one of the constants above) and
    the sentence that says it."""

    state: str
    detail: str
    versions: tuple[str, ...] = ()  # MISSING: the versions the index has, oldest first

    @property
    def fails(self) -> bool:
        """Whether the requirement is known not to install this book's library."""
        return self.state in (MISSING, ABSENT, OTHER)


def index_requirement(text: str) -> Requirement | None:
    """``text`` as a requirement of a package of the index (a name, maybe with a version);
    None for a URL, a path or anything else pip installs without asking the index."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    return None if requirement.url else requirement


def saved_names(source: str) -> set[str]:
    """The public names a library module defines at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def check_index(
    requirement: Requirement, package: str, modules: Mapping[str, str], timeout: float = TIMEOUT
) -> IndexCheck:
    """Whether ``requirement`` installs this book's library from the package index:
    ``package`` is its import package (``d2l``), ``modules`` its module files' sources by
    name (``torch.py``)."""
    name = requirement.name
    with tempfile.TemporaryDirectory(prefix="polybook-index-") as work:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", work]
        command += ["--retries", "1", "--timeout", "15", "--no-input", str(requirement)]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return IndexCheck(UNCHECKED, f"not checked: pip did not answer ({exc})")
        files = sorted(Path(work).iterdir())
        if done.returncode != 0 or not files:
            return _not_found(requirement, done.stdout + done.stderr)
        found = files[0]
        version = _version_of(found.name, name)
        members = _members(found)
    return _compare(f"{name} {version}".strip(), members, package, modules)


def check_library(
    requirement: Requirement, package: str, modules: Mapping[str, str], timeout: float = TIMEOUT
) -> IndexCheck:
    """:func:`check_index`, and where the version is missing, whether the name is another
    project's (its newest version checked): then the author is told how to name this
    book's distribution apart."""
    found = check_index(requirement, package, modules, timeout)
    if found.state == MISSING and found.versions:
        newest = Requirement(f"{requirement.name}=={found.versions[-1]}")
        other = check_index(newest, package, modules, timeout)
        if other.state == OTHER:
            found = IndexCheck(MISSING, f"{found.detail}; {other.detail}", found.versions)
    if found.state == OTHER or (found.state == MISSING and "another project" in found.detail):
        hint = (
            f"; name this book's distribution apart with [library] package (it still"
            f" imports as {package})"
        )
        found = IndexCheck(found.state, found.detail + hint, found.versions)
    return found


def _not_found(requirement: Requirement, output: str) -> IndexCheck:
    name = requirement.name
    if UNREACHABLE.search(output):
        return IndexCheck(UNCHECKED, "not checked: the package index could not be reached")
    listed = VERSIONS.search(output)
    versions = [v.strip() for v in listed.group(1).split(",")] if listed else []
    versions = [v for v in versions if v and v != "none"]
    if not listed and "No matching distribution" not in output:
        last = (output.strip().splitlines() or ["no answer"])[-1]
        return IndexCheck(UNCHECKED, f"not checked: pip said {last!r}")
    if not versions:
        return IndexCheck(ABSENT, f"there is no {name} on the package index")
    shown = ", ".join(versions[-SHOWN:])
    more = f"{len(versions) - SHOWN} older and " if len(versions) > SHOWN else ""
    pins = [s.version for s in requirement.specifier if s.operator == "=="]
    wanted = pins[0] if len(pins) == 1 else str(requirement.specifier) or "at all"
    detail = f"the package index has no {name} {wanted} (its versions: {more}{shown})"
    return IndexCheck(MISSING, detail, tuple(versions))


def _version_of(file_name: str, name: str) -> str:
    """The version in a wheel's or an sdist's file name."""
    stem = file_name.removesuffix(".whl").removesuffix(".tar.gz").removesuffix(".zip")
    parts = stem.split("-")
    return parts[1] if len(parts) > 1 else ""


def _members(archive: Path) -> dict[str, bytes]:
    """The files of a wheel or an sdist (an sdist's top folder and ``src/`` taken off),
    the Python ones read."""
    found: dict[str, bytes] = {}
    if archive.suffix in {".whl", ".zip"}:
        with zipfile.ZipFile(archive) as zipped:
            for member in zipped.namelist():
                path = member if archive.suffix == ".whl" else member.partition("/")[2]
                found[path] = zipped.read(member) if member.endswith(".py") else b""
        return _strip_src(found)
    with tarfile.open(archive) as tarred:
        for info in tarred.getmembers():
            if not info.isfile():
                continue
            data = tarred.extractfile(info) if info.name.endswith(".py") else None
            found[info.name.partition("/")[2]] = data.read() if data is not None else b""
    return _strip_src(found)


def _strip_src(found: dict[str, bytes]) -> dict[str, bytes]:
    if any(p.startswith("src/") for p in found):
        return {p.removeprefix("src/"): data for p, data in found.items()}
    return found


def _compare(
    what: str, members: Mapping[str, bytes], package: str, modules: Mapping[str, str]
) -> IndexCheck:
    """Whether the distribution ``members`` holds is this book's library."""
    tops = {
        PurePosixPath(p).parts[0].removesuffix(".py")
        for p in members
        if p and not PurePosixPath(p).parts[0].endswith((".dist-info", ".data", ".egg-info"))
    }
    if package not in tops:
        listed = ", ".join(sorted(tops)[:SHOWN]) or "none"
        detail = f"{what} on the package index is another project's: it installs {listed}"
        return IndexCheck(OTHER, detail)
    if not modules:
        return IndexCheck(UNCHECKED, "not checked: the library is not written yet (build lib)")
    for module, source in sorted(modules.items()):
        theirs = members.get(f"{package}/{module}")
        if theirs is None:
            detail = f"{what} on the package index is another project's: no {package}/{module}"
            return IndexCheck(OTHER, detail)
        lacking = sorted(saved_names(source) - saved_names(theirs.decode("utf-8", "replace")))
        if lacking:
            names = ", ".join(lacking[:SHOWN]) + (", …" if len(lacking) > SHOWN else "")
            detail = (
                f"{what} on the package index is another project's: its {package}/{module}"
                f" lacks {len(lacking)} of the names this book saves ({names})"
            )
            return IndexCheck(OTHER, detail)
    return IndexCheck(OK, f"{what} on the package index is this book's library")
