"""Framework environments: one venv per framework from pinned requirements, one kernel each;
what keeps one from being trusted, and setting one up (atomically: :mod:`.atomic`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from polybook.config import Book
from polybook.config.declarations import shipped
from polybook.config.requirements import pins
from polybook.diagnostics import Location, PolybookError
from polybook.environments import atomic
from polybook.frameworks import Framework
from polybook.fsutil import write_atomic
from polybook.kernel_imports import KERNEL_MODULES
from polybook.layout import EnvsFolder
from polybook.paths import IMPORT_ROOT, running_python

logger = logging.getLogger("polybook")

STAMP = ".polybook-stamp"
RECORD = ".polybook-env.json"  # what a host with no book (a Dask worker) learns of it


@dataclass(frozen=True)
class Environment:
    """A framework's venv and the kernel registered for it."""

    spec: Framework
    path: Path
    kernels_dir: Path
    requirements: Path
    extras: tuple[Path, ...] = ()  # the book's own requirement files

    @property
    def framework(self) -> str:
        return self.spec.name

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def kernel_name(self) -> str:
        return self.spec.kernel_name

    def framework_version(self) -> str:
        """Version of the framework installed in this environment ("" if unknown)."""
        dist = self.spec.distributions
        for info in sorted(self.path.glob("lib/python*/site-packages/*.dist-info")):
            name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
            if name.lower().replace("_", "-") in dist:
                return f"{name} {version}"
        return ""

    def identity(self) -> str:
        """Hash of the framework's pinned versions, the same for its CPU and CUDA builds.

        The CPU set names the versions (the CUDA set pins the same ones, see the tests), so
        a run cached on a GPU host serves a laptop, and the other way round. The book's own
        packages count too.
        """
        cpu = self.spec.requirements("cpu")
        named = pins(cpu) + sorted(p for extra in self.extras for p in pins(extra))
        return hashlib.sha256("\n".join(named).encode()).hexdigest()

    def requirements_hash(self) -> str:
        digest = hashlib.sha256(self.requirements.read_bytes())
        for extra in self.extras:
            digest.update(b"\0" + extra.read_bytes())
        return digest.hexdigest()


@dataclass(frozen=True)
class SetUpEnvironment:
    """An environment as a host without the book finds it: from the record :func:`ensure`
    leaves in it (the book's declarations and requirement files may be elsewhere)."""

    framework: str
    identity: str
    kernel_name: str
    path: Path
    kernels_dir: Path


def environment(
    framework: Framework | str, device: str, folder: EnvsFolder, extras: tuple[Path, ...] = ()
) -> Environment:
    """The environment of ``framework`` (a built-in one, when given by name) on ``device``,
    in ``folder``."""
    fw = shipped(framework) if isinstance(framework, str) else framework
    requirements = fw.requirements(device)
    if not requirements.is_file():
        raise PolybookError(
            Location(str(requirements)), f"no {device} requirements for {fw.name}", "env"
        )
    name = fw.environment_name  # the tabs no framework declares share one
    named = Environment(fw, folder.path / name, folder.path, requirements, extras)
    path = folder.environment(name, named.requirements_hash())
    return Environment(fw, path, folder.kernels(path), requirements, extras)


def book_environment(
    book: Book, name: str, device: str, folder: EnvsFolder, extras: tuple[Path, ...]
) -> Environment:
    """The environment of the book's tab ``name``, with the book's extra packages
    (``extras``: its requirement files for that tab)."""
    return environment(book.framework(name), device, folder, extras)


def _stamp(env: Environment) -> list[str]:
    """The stamp's lines: the hash of the requirements installed (then, from polybook
    0.1, the book's packages)."""
    try:
        return (env.path / STAMP).read_text(encoding="utf-8").split()
    except OSError:
        return []


def _base_home(env: Environment) -> Path | None:
    """The folder of the Python the venv was made from (``home`` in its ``pyvenv.cfg``)."""
    try:
        lines = (env.path / "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home":
            return Path(value.strip())
    return None


def problem(env: Environment) -> str:
    """What keeps ``env`` from being trusted, said for its owner ("" when nothing): not set
    up, its interpreter missing, an install that did not finish, a stale stamp, no pip."""
    if not env.path.exists():
        return "it is not set up"
    if not env.python.exists():
        if env.python.is_symlink():
            target = env.python.readlink()
            return f"its interpreter is missing (bin/python links to {target}, which is gone)"
        return "its interpreter is missing (no bin/python)"
    home = _base_home(env)
    if home is not None and not home.is_dir():
        return f"its interpreter is missing (the Python it was made from, in {home}, is gone)"
    stamp = _stamp(env)
    if not stamp:
        return "its install did not finish (no stamp: interrupted, or made by hand)"
    if stamp[0] != env.requirements_hash():
        return (
            f"its stamp is stale: it was installed from other pins than {env.requirements}"
            + (" and the book's requirement files" if env.extras else "")
            + " name now"
        )
    if not any(env.path.glob("lib/python*/site-packages/pip/__init__.py")):
        return "it has no pip"
    return ""


def is_ready(env: Environment) -> bool:
    """Packages installed from the current pins, and the kernelspec as polybook writes it."""
    try:
        spec = json.loads((env.kernels_dir / env.kernel_name / "kernel.json").read_bytes())
    except (OSError, ValueError):
        return False
    if problem(env) or spec != kernelspec(env):
        return False
    try:
        return (env.path / RECORD).read_text(encoding="utf-8") == _record(env)
    except OSError:
        return False


def _record(env: Environment) -> str:
    """The record a host without the book reads. The default environment's names no
    framework and no kernel (its tabs' kernels are the book's): hosts do not offer it."""
    shared = not env.spec.declared
    made = {
        "framework": env.spec.environment_name,
        "identity": env.identity(),
        "kernel_name": "" if shared else env.kernel_name,
        "requirements_hash": env.requirements_hash(),
    }
    return json.dumps(made, indent=1, sort_keys=True) + "\n"


def set_up_environments(root: Path) -> list[SetUpEnvironment]:
    """The environments under ``root`` that were set up completely: any framework, a
    book's own too, as recorded when it was set up (a shared folder may hold several of
    one framework, one per requirement set)."""
    found: list[SetUpEnvironment] = []
    for record in sorted(root.glob(f"*/{RECORD}")):
        try:
            made = json.loads(record.read_text(encoding="utf-8"))
            stamp = (record.parent / STAMP).read_text(encoding="utf-8").split()
            fw, identity, kernel = made["framework"], made["identity"], made["kernel_name"]
            complete = stamp[:1] == [made["requirements_hash"]]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not polybook's
        kernels = EnvsFolder(root, shared=record.parent.name != fw).kernels(record.parent)
        python = record.parent / "bin" / "python"
        offered = bool(kernel) and (kernels / str(kernel) / "kernel.json").is_file()
        if complete and python.exists() and offered:
            found.append(
                SetUpEnvironment(str(fw), str(identity), str(kernel), record.parent, kernels)
            )
    return found


def setup_command(framework: str) -> str:
    """The command that sets up (or repairs) a framework's environment."""
    return f"polybook env setup --tab {framework}"


def kernelspec(env: Environment) -> dict[str, Any]:
    """The kernel: ipykernel with polybook's extension (``%%tab``, ``tab.selected``, ``d2l``),
    imported from where this polybook is, which leaves ``sys.path`` again once loaded."""
    source = str(IMPORT_ROOT)
    boot = (
        f"import sys; sys.path.append({source!r}); "
        f"from polybook.authoring.kernel_ext import main; sys.path.remove({source!r}); main()"
    )
    return {
        "argv": [str(env.python), "-c", boot, "-f", "{connection_file}"],
        "display_name": f"Python 3 ({env.spec.display_name})",
        "language": "python",
        # The Python that runs polybook reads a cell's #@save marks for the extension.
        "env": {
            "POLYBOOK_FRAMEWORK": env.framework,
            "POLYBOOK_MODULE": env.spec.module,
            "POLYBOOK_PYTHON": running_python(),
        },
        "metadata": {"polybook": {"framework": env.framework}},
    }


def write_kernelspec(env: Environment) -> bool:
    """Write the kernelspec; False when it was already current."""
    target = env.kernels_dir / env.kernel_name / "kernel.json"
    return write_atomic(target, json.dumps(kernelspec(env), indent=1) + "\n")


def import_problem(env: Environment) -> str:
    """Why the environment's Python does not import its framework and ipykernel ("": it
    does)."""
    module = env.spec.imported_module
    imports = f"ipykernel, {module}" if module else "ipykernel"
    try:
        done = subprocess.run(
            [str(env.python), "-c", f"import {imports}"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"its Python does not run ({exc})"
    if done.returncode == 0:
        return ""
    last = (done.stderr.strip().splitlines() or ["?"])[-1]
    return f"it cannot import {imports.replace(', ', ' and ')} ({last})"


def describe(env: Environment) -> str:
    """``the pytorch environment``'s words: the framework's, else the default one's."""
    return f"{env.framework} environment" if env.spec.declared else "default Python environment"


def lock_file(env: Environment) -> Path:
    """The lock held while ``env`` is set up."""
    return env.path.parent / ".locks" / f"{env.path.name}.lock"


def ensure(env: Environment, verify: bool = False) -> Literal["", "kernelspec", "installed"]:
    """Set ``env`` up where it cannot be trusted (with ``verify``, also where it no longer
    imports its framework), rebuilt whole and put in place at once; what was done: nothing
    (""), the kernelspec rewritten alone, or the environment (re)built."""
    what = f"the {describe(env)} ({env.path})"
    with atomic.locked(lock_file(env), what):
        for stale in atomic.clear_leftovers(env.path):
            logger.warning("removed %s, left by a set-up of %s that did not finish", stale, what)
        why = problem(env) or (import_problem(env) if verify else "")
        if not why:
            write_atomic(env.path / RECORD, _record(env))  # missing where set up before records
            return "kernelspec" if write_kernelspec(env) else ""  # only it may be out of date
        if env.path.exists() or env.path.is_symlink():
            logger.warning("rebuilding %s: %s", what, why)
        failed = (
            f"the {describe(env)} could not be set up in {env.path} from "
            f"{env.requirements.name} ({setup_command(env.framework)} retries)"
        )
        marks = {STAMP: env.requirements_hash() + "\n", RECORD: _record(env)}
        requirements = (env.requirements, *env.extras)
        if atomic.create_venv(env.path, requirements, marks, failed, compile_all=False) == "uv":
            compile_kernel_imports(env)
        write_kernelspec(env)
        return "installed"


# Imported by each module in turn, each failure left for the kernel to report.
IMPORT_EACH = (
    "import importlib, sys\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        importlib.import_module(name)\n"
    "    except Exception:\n"
    "        pass\n"
)


def compile_kernel_imports(env: Environment) -> None:
    """Bytecode for what a kernel of ``env`` imports (ipykernel, IPython, the framework),
    written by importing it once: uv compiles nothing it installs here, where pip compiles
    every module, thousands a kernel never imports (three times the CPU time, here)."""
    modules = [m for m in KERNEL_MODULES if m.partition(".")[0] != "polybook"]
    environ = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
    }
    command = [
        str(env.python),
        "-c",
        IMPORT_EACH,
        *modules,
        *filter(None, [env.spec.imported_module]),
    ]
    logger.info("compiling what a %s kernel imports: %s", env.framework, " ".join(command[3:]))
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(command, capture_output=True, timeout=600, check=False, env=environ)
