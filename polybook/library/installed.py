"""What a framework's environment has installed, read from its ``*.dist-info`` folders: the
distribution that provides a module, and the metadata of a distribution at a version."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path, PurePosixPath

from packaging.version import InvalidVersion, Version

from polybook.layout import EnvsFolder
from polybook.library.pins import pin_name
from polybook.memo import FileMemo, memoised

# What a site-packages folder holds of a distribution, while the folder holds the same
# (an install or an uninstall adds or removes a ``*.dist-info`` folder in it).
_METADATA: FileMemo[str | None] = FileMemo(4096)


def _site_packages(framework: str, envs: EnvsFolder) -> list[Path]:
    return [
        found
        for env in envs.candidates(framework)
        for found in sorted(env.glob("lib/python*/site-packages"))
    ]


@memoised(4096)
def distribution_of(module: str, framework: str, envs: EnvsFolder) -> str:
    """The distribution that installs ``module`` in the framework's environment: the one of
    that name, else the one whose files hold it (``tensorflow`` -> ``tensorflow_cpu``);
    ``module`` itself when the environment is not set up or none does."""
    site = _site_packages(framework, envs)
    infos = sorted(site[0].glob("*.dist-info")) if site else []
    names = {i.name.removesuffix(".dist-info").rpartition("-")[0]: i for i in infos}
    if pin_name(module) in {pin_name(n) for n in names}:
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


def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_metadata(name: str, version: str, framework: str, envs: EnvsFolder) -> str | None:
    """The ``METADATA`` of distribution ``name`` at ``version`` in the framework's
    environment (None when it is not installed there, or no version is asked for)."""
    site = sorted(
        p for env in envs.candidates(framework) for p in env.glob("lib/python*/site-packages")
    )
    if not site or not version:
        return None
    return _METADATA.value([site[0]], lambda: _metadata(site[0], name, version), (name, version))


def _metadata(site: Path, name: str, version: str) -> str | None:
    for info in sorted(site.glob("*.dist-info")):
        found, _, found_version = info.name.removesuffix(".dist-info").rpartition("-")
        if _dist_name(found) != _dist_name(name):
            continue
        with contextlib.suppress(InvalidVersion):
            if Version(found_version).public != Version(version).public:
                continue
        return (info / "METADATA").read_text(encoding="utf-8", errors="replace")
    return None
