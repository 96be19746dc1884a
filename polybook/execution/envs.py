"""Framework environments: one venv per framework from pinned requirements, one kernel each."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polybook import frameworks
from polybook.diagnostics import Location, PolybookError
from polybook.fsutil import write_atomic
from polybook.paths import SOURCE_ROOT

logger = logging.getLogger("polybook")

STAMP = ".polybook-stamp"


@dataclass(frozen=True)
class Environment:
    """A framework's venv and the kernel registered for it."""

    framework: str
    path: Path
    kernels_dir: Path
    requirements: Path

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def kernel_name(self) -> str:
        return frameworks.get(self.framework).kernel_name

    def framework_version(self) -> str:
        """Version of the framework installed in this environment ("" if unknown)."""
        dist = frameworks.get(self.framework).distribution
        for info in sorted(self.path.glob("lib/python*/site-packages/*.dist-info")):
            name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
            if name.lower().replace("_", "-") in dist:
                return f"{name} {version}"
        return ""

    def identity(self) -> str:
        """Hash of the framework's pinned versions, the same for its CPU and CUDA builds.

        The CPU set names the versions (the CUDA set pins the same ones, see the tests), so
        a run cached on a GPU host serves a laptop, and the other way round.
        """
        cpu = SOURCE_ROOT / frameworks.get(self.framework).requirements("cpu")
        return hashlib.sha256("\n".join(pins(cpu)).encode()).hexdigest()

    def requirements_hash(self) -> str:
        return hashlib.sha256(self.requirements.read_bytes()).hexdigest()


BUILD_VARIANT = re.compile(r"\[[^\]]*\]|[-_](cpu|cu\d+)(?=\s*==)")


def normalized_pin(line: str) -> str:
    """``tensorflow[and-cuda]==2.21`` / ``tensorflow_cpu==2.21`` -> ``tensorflow==2.21``."""
    name, _, version = line.strip().partition("==")
    name = BUILD_VARIANT.sub("", name.strip() + "==").removesuffix("==")
    return f"{name.lower().replace('_', '-')}=={version.strip()}"


def pins(requirements: Path) -> list[str]:
    """The normalized pins of a requirement file, sorted."""
    lines = requirements.read_text(encoding="utf-8").splitlines()
    return sorted(normalized_pin(x) for x in lines if x.strip() and not x.lstrip().startswith("#"))


def envs_root(configured: str = "") -> Path:
    """``[build] envs_dir``, else ``$POLYBOOK_ENVS``, else ``.envs`` beside polybook's source."""
    chosen = configured or os.environ.get("POLYBOOK_ENVS", "")
    return Path(chosen).resolve() if chosen else SOURCE_ROOT / ".envs"


@functools.cache
def host_gpus() -> int:
    """Number of NVIDIA GPUs this host has (0 without a driver); asked once per process."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return 0
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def resolve_device(configured: str) -> str:
    """``cpu`` or ``cuda``: the configured choice, or detection when ``auto``."""
    if configured in {"cpu", "cuda"}:
        return configured
    return "cuda" if host_gpus() > 0 else "cpu"


def environment(framework: str, device: str, root: Path) -> Environment:
    requirements = SOURCE_ROOT / frameworks.get(framework).requirements(device)
    if not requirements.is_file():
        raise PolybookError(
            Location(str(requirements)), f"no {device} requirements for {framework}", "env"
        )
    return Environment(framework, root / framework, root / "kernels", requirements)


def _packages_ready(env: Environment) -> bool:
    stamp = env.path / STAMP
    return (
        env.python.exists()
        and stamp.is_file()
        and stamp.read_text(encoding="utf-8").strip() == env.requirements_hash()
    )


def is_ready(env: Environment) -> bool:
    """Packages installed from the current pins, and the kernelspec as polybook writes it."""
    try:
        spec = json.loads((env.kernels_dir / env.kernel_name / "kernel.json").read_bytes())
    except (OSError, ValueError):
        return False
    return _packages_ready(env) and spec == kernelspec(env)


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
        "display_name": f"Python 3 ({frameworks.get(env.framework).display_name})",
        "language": "python",
        # The Python that runs polybook reads a cell's #@save marks for the extension.
        "env": {"POLYBOOK_FRAMEWORK": env.framework, "POLYBOOK_PYTHON": sys.executable},
        "metadata": {"polybook": {"framework": env.framework}},
    }


def write_kernelspec(env: Environment) -> bool:
    """Write the kernelspec; False when it was already current."""
    target = env.kernels_dir / env.kernel_name / "kernel.json"
    return write_atomic(target, json.dumps(kernelspec(env), indent=1) + "\n")


def is_healthy(env: Environment) -> bool:
    """Whether the environment's Python starts and imports its framework and ipykernel."""
    module = frameworks.get(env.framework).lib_name
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


def ensure(env: Environment, verify: bool = False) -> bool:
    """Create or update ``env`` when its requirements changed (or, with ``verify``, when it
    no longer imports its framework); False when nothing was done."""
    packaged = _packages_ready(env)
    if packaged and not (verify and not is_healthy(env)):
        return write_kernelspec(env)  # only the kernelspec may be out of date
    if not env.python.exists() or packaged:  # missing, or ready on paper but broken
        venv.EnvBuilder(with_pip=True, clear=True).create(env.path)
    (env.path / STAMP).unlink(missing_ok=True)
    pip = [str(env.python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    _run([*pip, "-r", str(env.requirements)], env)
    write_kernelspec(env)
    write_atomic(env.path / STAMP, env.requirements_hash() + "\n")
    return True


def ensure_all(
    names: tuple[str, ...], device: str, configured_root: str = "", verify: bool = False
) -> list[Environment]:
    """The environments of ``names``, set up where missing; ``verify`` also repairs broken
    ones (``polybook env setup``), at the cost of importing each framework once."""
    root = envs_root(configured_root)
    resolved = resolve_device(device)
    envs = [environment(name, resolved, root) for name in names]
    missing = [env for env in envs if verify or not is_ready(env)]
    # Installs are mostly downloads and unpacking: set environments up side by side.
    with ThreadPoolExecutor(max_workers=max(1, len(missing))) as pool:
        done_list = pool.map(lambda env: ensure(env, verify), missing)
        for env, done in zip(missing, done_list, strict=True):
            if done:
                logger.info(
                    "set up the %s environment (%s) in %s", env.framework, resolved, env.path
                )
    return envs
