"""Framework environments: one venv per framework from pinned requirements, one kernel each."""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from polybook import frameworks
from polybook.config import CONFIG_FILE, BookConfig
from polybook.config.requirements import pins
from polybook.diagnostics import Location, PolybookError
from polybook.frameworks import Framework
from polybook.fsutil import write_atomic
from polybook.paths import SOURCE_ROOT, running_python

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
        dist = self.spec.distribution
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
    framework: Framework | str, device: str, root: Path, extras: tuple[Path, ...] = ()
) -> Environment:
    """The environment of ``framework`` (a built-in one, when given by name) on ``device``."""
    fw = frameworks.get(framework) if isinstance(framework, str) else framework
    if not fw.declared:
        raise undeclared(fw)
    requirements = fw.requirements(device)
    if not requirements.is_file():
        raise PolybookError(
            Location(str(requirements)), f"no {device} requirements for {fw.name}", "env"
        )
    return Environment(fw, root / fw.name, root / "kernels", requirements, extras)


def undeclared(fw: Framework, where: Location | None = None) -> PolybookError:
    """Why a tab with no declaration cannot run, and the section that fixes it."""
    message = (
        f"tab {fw.name!r} is not a declared framework, so its notebooks cannot run: add a"
        f" [framework-{fw.name}] section naming its pinned `cpu_requirements` (and its"
        " `module`), or set [build] eval_notebook = false"
    )
    where = where or Location(CONFIG_FILE, 0, fw.name)
    return PolybookError(where, message, "env.undeclared")


def book_environment(config: BookConfig, name: str, device: str, root: Path) -> Environment:
    """The environment of the book's tab ``name``, with the book's extra packages."""
    return environment(config.framework(name), device, root, config.extra_requirements(name))


def _stamp(env: Environment) -> list[str]:
    """The stamp's lines: the hash of the requirements installed, then the book's packages."""
    try:
        return (env.path / STAMP).read_text(encoding="utf-8").split()
    except OSError:
        return []


def _book_packages(env: Environment) -> set[str]:
    """Names of the packages the book's own requirement files add to the framework's."""
    own = {p.partition("==")[0] for p in pins(env.requirements)}
    added = {p.partition("==")[0] for extra in env.extras for p in pins(extra)}
    return added - own


def _packages_ready(env: Environment) -> bool:
    return env.python.exists() and _stamp(env)[:1] == [env.requirements_hash()]


def is_ready(env: Environment) -> bool:
    """Packages installed from the current pins, and the kernelspec as polybook writes it."""
    try:
        spec = json.loads((env.kernels_dir / env.kernel_name / "kernel.json").read_bytes())
    except (OSError, ValueError):
        return False
    if not (_packages_ready(env) and spec == kernelspec(env)):
        return False
    try:
        return (env.path / RECORD).read_text(encoding="utf-8") == _record(env)
    except OSError:
        return False


def _record(env: Environment) -> str:
    made = {
        "framework": env.framework,
        "identity": env.identity(),
        "kernel_name": env.kernel_name,
        "requirements_hash": env.requirements_hash(),
    }
    return json.dumps(made, indent=1, sort_keys=True) + "\n"


def set_up_environments(root: Path) -> dict[str, SetUpEnvironment]:
    """The environments under ``root`` that were set up completely, by framework: any
    framework, a book's own too, as recorded when it was set up."""
    found: dict[str, SetUpEnvironment] = {}
    for record in sorted(root.glob(f"*/{RECORD}")):
        try:
            made = json.loads(record.read_text(encoding="utf-8"))
            stamp = (record.parent / STAMP).read_text(encoding="utf-8").split()
            fw, identity, kernel = made["framework"], made["identity"], made["kernel_name"]
            complete = stamp[:1] == [made["requirements_hash"]]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being set up, or not by polybook
        kernels = root / "kernels"
        python = record.parent / "bin" / "python"
        if complete and python.exists() and (kernels / str(kernel) / "kernel.json").is_file():
            found[str(fw)] = SetUpEnvironment(
                str(fw), str(identity), str(kernel), record.parent, kernels
            )
    return found


def setup_command(framework: str) -> str:
    """The command that sets up (or repairs) a framework's environment."""
    return f"polybook env setup --tab {framework}"


def _run(command: list[str], env: Environment) -> None:
    logger.info("%s environment: %s", env.framework, " ".join(command))
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        done = subprocess.CompletedProcess(command, 1, "", str(exc))
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
        message = (
            f"the {env.framework} environment could not be set up in {env.path} from "
            f"{env.requirements.name} ({setup_command(env.framework)} retries):\n{tail}"
        )
        raise PolybookError(Location(str(env.requirements)), message, "env")


def kernelspec(env: Environment) -> dict[str, Any]:
    """The kernel: ipykernel with polybook's extension (``%%tab``, ``tab.selected``, ``d2l``),
    imported from polybook's source, which leaves ``sys.path`` again once loaded."""
    source = str(SOURCE_ROOT)
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
            "POLYBOOK_MODULE": env.spec.lib_name,
            "POLYBOOK_PYTHON": running_python(),
        },
        "metadata": {"polybook": {"framework": env.framework}},
    }


def write_kernelspec(env: Environment) -> bool:
    """Write the kernelspec; False when it was already current."""
    target = env.kernels_dir / env.kernel_name / "kernel.json"
    return write_atomic(target, json.dumps(kernelspec(env), indent=1) + "\n")


def is_healthy(env: Environment) -> bool:
    """Whether the environment's Python starts and imports its framework and ipykernel."""
    module = env.spec.lib_name
    try:
        done = subprocess.run(
            [str(env.python), "-c", f"import ipykernel, {module}"],
            capture_output=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def ensure(env: Environment, verify: bool = False) -> Literal["", "kernelspec", "installed"]:
    """Create or update ``env`` when its requirements changed (or, with ``verify``, when it
    no longer imports its framework); what was done: nothing (""), the kernelspec rewritten
    alone, or packages installed."""
    packaged = _packages_ready(env)
    if packaged and not (verify and not is_healthy(env)):
        write_atomic(env.path / RECORD, _record(env))  # missing where set up before records
        return "kernelspec" if write_kernelspec(env) else ""  # only it may be out of date
    if not env.python.exists() or packaged:  # missing, or ready on paper but broken
        venv.EnvBuilder(with_pip=True, clear=True).create(env.path)
    dropped = set(_stamp(env)[1:]) - _book_packages(env)  # the book no longer asks for them
    (env.path / STAMP).unlink(missing_ok=True)
    pip = [str(env.python), "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "install", *(f"--requirement={r}" for r in (env.requirements, *env.extras))], env)
    if dropped:
        _run([*pip, "uninstall", "-y", *sorted(dropped)], env)
    write_kernelspec(env)
    stamp = [env.requirements_hash(), *sorted(_book_packages(env))]
    write_atomic(env.path / STAMP, "\n".join(stamp) + "\n")
    write_atomic(env.path / RECORD, _record(env))
    return "installed"
