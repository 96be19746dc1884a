"""Existing environments: ``[env-<tab>] python = PATH`` runs a framework's notebooks in a
Python the host already has (a conda environment, a cluster module, a system Python with a
CUDA build) instead of a venv of polybook's.

polybook checks, in a subprocess, that it imports the framework and ipykernel and loads
polybook's kernel extension; with ``install_kernel = true`` it installs ipykernel (and what
ipykernel needs, nothing else) when missing. The cache identity is what is installed there,
read from that Python's own package metadata, not polybook's pins. The check is remembered
under ``<envs_dir>/existing/`` until the interpreter or a folder of its ``sys.path`` changes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook.config import CONFIG_FILE, Book
from polybook.config.model import EnvSettings
from polybook.config.requirements import pins
from polybook.diagnostics import Location, PolybookError
from polybook.environments import venvs
from polybook.frameworks import Framework
from polybook.fsutil import write_atomic
from polybook.paths import IMPORT_ROOT

logger = logging.getLogger("polybook")

MARK = "POLYBOOK-PROBE:"
# Runs in the existing Python: what it imports and holds, as one JSON line after MARK.
PROBE = """
import importlib, json, sys
found = {"python": sys.version.split()[0], "path": [p for p in sys.path if p]}
try:
    module = importlib.import_module(sys.argv[1])
    found["module_version"] = str(getattr(module, "__version__", ""))
except BaseException as exc:
    found["framework_error"] = "%s: %s" % (type(exc).__name__, exc)
try:
    import ipykernel
    found["ipykernel"] = str(ipykernel.__version__)
except BaseException as exc:
    found["ipykernel_error"] = "%s: %s" % (type(exc).__name__, exc)
if "ipykernel" in found:
    sys.path.append(sys.argv[2])
    try:
        import polybook.authoring.kernel_ext
    except BaseException as exc:
        found["extension_error"] = "%s: %s" % (type(exc).__name__, exc)
from importlib import metadata
names = set()
for dist in metadata.distributions():
    name = dist.metadata["Name"]
    if name:
        names.add(name.lower().replace("_", "-") + "==" + dist.version)
found["installed"] = sorted(names)
print("\\n%s%s" % (sys.argv[3], json.dumps(found)))
"""


@dataclass(frozen=True)
class ExistingEnvironment(venvs.Environment):
    """A framework's environment that polybook did not make: an interpreter and what it holds."""

    interpreter: Path = Path()
    installed: tuple[str, ...] = ()  # ``name==version`` of every distribution there
    version: str = ""  # the framework's, ``torch 2.5.1``
    python_version: str = ""

    @property
    def python(self) -> Path:
        return self.interpreter

    @property
    def kernel_name(self) -> str:
        """Its own kernel: the venv's of the same framework stays as it is."""
        return f"{self.spec.kernel_name}-{_digest(str(self.interpreter))[:8]}"

    def framework_version(self) -> str:
        return self.version

    def identity(self) -> str:
        """Hash of the Python's version and every distribution installed there."""
        named = [f"python=={self.python_version}", *self.installed]
        return hashlib.sha256("\n".join(named).encode()).hexdigest()

    def describe(self) -> str:
        """``/opt/conda/bin/python (torch 2.5.1, Python 3.11.7)``, for build reports."""
        return f"{self.interpreter} ({self.version}, Python {self.python_version})"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _fingerprint(interpreter: Path, path: list[str]) -> list[Any]:
    """What changes when packages are installed or removed: the interpreter, and the
    modification times of the folders on its ``sys.path``."""
    found: list[Any] = []
    for place in [str(interpreter), *path]:
        try:
            info = os.stat(place)
        except OSError:
            found.append([place, None])
            continue
        found.append([place, info.st_mtime_ns, info.st_size])
    return found


def _probe(interpreter: Path, fw: Framework) -> dict[str, Any]:
    """Run :data:`PROBE` in ``interpreter``; ``{"error": …}`` when it does not run at all."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environ.update(fw.kernel_variables())
    module = fw.imported_module or "sys"  # an undeclared tab imports no framework
    command = [str(interpreter), "-c", PROBE, module, str(IMPORT_ROOT), MARK]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=600, check=False, env=environ
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": str(exc)}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARK):
            found: dict[str, Any] = json.loads(line.removeprefix(MARK))
            return found
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
    return {"error": f"it exited with status {done.returncode}:\n{tail}"}


def _usable(found: dict[str, Any]) -> bool:
    return not any(k in found for k in ("error", "framework_error", "ipykernel_error"))


def _record(records: Path, interpreter: Path, fw: Framework) -> Path:
    return records / f"{_digest(f'{interpreter}|{fw.module}')[:16]}.json"


def probe(interpreter: Path, fw: Framework, records: Path, fresh: bool = False) -> dict[str, Any]:
    """What ``interpreter`` imports and holds; a usable answer is remembered in ``records``
    until its fingerprint changes (``fresh``: ask again anyway)."""
    record = _record(records, interpreter, fw)
    if not fresh:
        try:
            kept = json.loads(record.read_text(encoding="utf-8"))
            found: dict[str, Any] = kept["probe"]
            if kept["fingerprint"] == _fingerprint(interpreter, found["path"]):
                return found
        except (OSError, ValueError, KeyError, TypeError):
            pass
    found = _probe(interpreter, fw)
    if _usable(found) and "extension_error" not in found:
        kept = {"probe": found, "fingerprint": _fingerprint(interpreter, found["path"])}
        write_atomic(record, json.dumps(kept, indent=1))
    return found


def _ipykernel_pin(fw: Framework) -> str:
    """``ipykernel==V`` as the framework's own environments pin it (else unpinned)."""
    for device in ("cpu", "cuda"):
        requirements = fw.requirements(device)
        if requirements.is_file():
            for pin in pins(requirements):
                if pin.startswith("ipykernel=="):
                    return pin
    return "ipykernel"


def _install_kernel(interpreter: Path, fw: Framework, where: Location, section: str) -> None:
    pin = _ipykernel_pin(fw)
    command = [str(interpreter), "-m", "pip", "install", "--disable-pip-version-check", "-q", pin]
    logger.info("%s: installing %s into %s (install_kernel = true)", fw.name, pin, interpreter)
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        done = subprocess.CompletedProcess(command, 1, "", str(exc))
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
        message = (
            f"[{section}] install_kernel: `{' '.join(command[:4])} {pin}` failed; install"
            f" ipykernel into {interpreter} yourself:\n{tail}"
        )
        raise PolybookError(where, message, "env.existing")


def _check(found: dict[str, Any], settings: EnvSettings, fw: Framework, where: Location) -> None:
    """Raise what keeps ``found`` (a probe's answer) from running notebooks, with the fix."""
    section, interpreter = f"env-{fw.name}", settings.python
    named = f"[{section}] python: {interpreter}"
    if "error" in found:
        raise PolybookError(where, f"{named} does not run: {found['error']}", "env.existing")
    python = f"(Python {found.get('python', '?')})"
    if "framework_error" in found:
        message = (
            f"{named} {python} cannot import {fw.module}, which the {fw.name} notebooks"
            f" need ({found['framework_error']}): install {fw.display_name} there, or remove"
            f" the key to run {fw.name} in polybook's own environment"
        )
        raise PolybookError(where, message, "env.existing")
    if "ipykernel_error" in found:
        message = (
            f"{named} {python} has {fw.module} but not ipykernel, which runs the notebooks:"
            f" set `install_kernel = true` in [{section}] to let polybook install it there,"
            f" or run `{interpreter} -m pip install {_ipykernel_pin(fw)}`"
        )
        raise PolybookError(where, message, "env.existing")
    if "extension_error" in found:
        message = (
            f"{named} {python} cannot load polybook's kernel extension"
            f" ({found['extension_error']}): it needs a Python polybook supports (3.11 or later)"
        )
        raise PolybookError(where, message, "env.existing")


def _version(found: dict[str, Any], fw: Framework) -> str:
    for pin in found.get("installed", ()):
        name, _, version = str(pin).partition("==")
        if name in fw.distributions:
            return f"{name} {version}"
    return f"{fw.module} {found.get('module_version') or '?'}"


def existing_environment(
    book: Book, name: str, settings: EnvSettings, root: Path, fresh: bool = False
) -> ExistingEnvironment:
    """The checked environment of tab ``name``'s ``[env-<name>] python`` (``settings``), its
    kernelspec written; a located error says what is missing and how to fix it."""
    fw = book.framework(name)
    section = f"env-{name}"
    where = Location(CONFIG_FILE, settings.line, name)
    interpreter = Path(settings.python)
    if not interpreter.is_file() or not os.access(interpreter, os.X_OK):
        what = "is not an executable file" if interpreter.exists() else "does not exist"
        raise PolybookError(where, f"[{section}] python: {interpreter} {what}", "env.existing")
    records = root / "existing"
    found = probe(interpreter, fw, records, fresh)
    if "ipykernel_error" in found and "framework_error" not in found and settings.install_kernel:
        _install_kernel(interpreter, fw, where, section)
        found = probe(interpreter, fw, records, fresh=True)
    _check(found, settings, fw, where)
    env = ExistingEnvironment(
        spec=fw,
        path=interpreter.parent.parent,
        kernels_dir=root / "kernels",
        requirements=fw.requirements("cpu"),
        interpreter=interpreter,
        installed=tuple(str(p) for p in found.get("installed", ())),
        version=_version(found, fw),
        python_version=str(found.get("python", "")),
    )
    venvs.write_kernelspec(env)
    logger.info("%s runs in an existing environment: %s", name, env.describe())
    return env


def fingerprints(
    book: Book, env_settings: Mapping[str, EnvSettings], tabs: tuple[str, ...]
) -> list[Any]:
    """What a build of ``tabs`` depends on in their existing environments (``env_settings``:
    the ``[env-<tab>]`` sections), read without running them (for the check that nothing
    changed since the last build)."""
    found: list[Any] = []
    records = book.envs.path / "existing"
    for name in tabs:
        settings = env_settings.get(name)
        if settings is None or not settings.python:
            continue
        fw = book.framework(name)
        record = _record(records, Path(settings.python), fw)
        try:
            path = json.loads(record.read_text(encoding="utf-8"))["probe"]["path"]
        except (OSError, ValueError, KeyError, TypeError):
            path = []
        found.append([name, _fingerprint(Path(settings.python), list(path))])
    return found
