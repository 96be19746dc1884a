"""``polybook lab``: JupyterLab on the book; ``polybook env kernels``: the kernels elsewhere.

In polybook's checkout, Lab runs from an environment of its own (``.envs/lab``, from
``requirements/lab.txt``: JupyterLab's packages would slow every polybook command in the
tool's environment); an installed polybook runs the JupyterLab installed beside it
(``pip install 'polybook[lab]'``). It listens
127.0.0.1 with a token, rooted at the book. Its
configuration is written under ``_build/lab/`` (nothing in the book's sources): the
contents manager that opens pages as notebooks, the framework kernels as the only ones,
checkpoints under ``_build/lab/checkpoints``, notebook signatures kept in memory, and
Markdown files opening in the notebook view (jupytext's JupyterLab extension; its own
contents manager is left off).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from polybook.config import Book
from polybook.diagnostics import Location, PolybookError
from polybook.environments import installer, venvs
from polybook.environments.venvs import Environment
from polybook.fsutil import write_atomic
from polybook.layout import EnvsFolder
from polybook.paths import CHECKOUT, IMPORT_ROOT

CONTENTS_MANAGER = "polybook.authoring.contents.PageContentsManager"
NOTEBOOK_VIEW = "Jupytext Notebook"  # jupytext's notebook view of text files
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": NOTEBOOK_VIEW}},
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"},
}


def lab_config(book: Book, kernels: list[str], framework: str) -> dict[str, Any]:
    """Jupyter's configuration for the book (``ServerApp``, ``LabApp`` and the rest)."""
    lab_dir = book.layout.lab
    return {
        "ServerApp": {
            "ip": "127.0.0.1",
            "root_dir": str(book.root),
            "contents_manager_class": CONTENTS_MANAGER,
            "jpserver_extensions": {"jupyterlab_jupytext": False},
        },
        # Nothing from the network: no extension index, news or update checks.
        "LabApp": {
            "app_settings_dir": str(lab_dir / "settings"),
            "extension_manager": "readonly",
            "news_url": None,
            "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        },
        "KernelSpecManager": {"allowed_kernelspecs": kernels, "ensure_native_kernel": False},
        "MappingKernelManager": {"default_kernel_name": kernels[0]},
        "FileCheckpoints": {"root_dir": str(lab_dir / "checkpoints")},
        "PageContentsManager": {"framework": framework},
        # Pages never keep outputs, so there is nothing to trust: signatures stay in memory,
        # not in the user's Jupyter database (nothing written outside the book).
        "NotebookNotary": {"db_file": ":memory:"},
    }


def write_lab_config(book: Book, kernels: list[str], framework: str) -> Path:
    """Write the configuration under ``_build/lab``; returns the file to pass as --config."""
    lab_dir = book.layout.lab
    write_atomic(lab_dir / "settings" / "overrides.json", json.dumps(LAB_SETTINGS, indent=1))
    target = lab_dir / "jupyter_lab_config.json"
    write_atomic(target, json.dumps(lab_config(book, kernels, framework), indent=1))
    return target


LAB_REQUIREMENTS = IMPORT_ROOT / "requirements" / "lab.txt"  # in the checkout
PYPROJECT = IMPORT_ROOT / "pyproject.toml"


def lab_stamp() -> str:
    """What the lab environment is made from: its pins, the tool's, polybook's metadata."""
    digest = hashlib.sha256()
    for path in (LAB_REQUIREMENTS, LAB_REQUIREMENTS.with_name("tool.txt"), PYPROJECT):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def lab_python(envs: EnvsFolder) -> Path:
    """The Python that runs JupyterLab: the checkout's lab environment (in ``envs``), else
    this one."""
    if CHECKOUT is not None:
        return ensure_lab_env(envs.path / "lab")
    if importlib.util.find_spec("jupyterlab") is None:
        message = "JupyterLab is not installed beside polybook: pip install 'polybook[lab]'"
        raise PolybookError(Location("polybook lab"), message, "env")
    return Path(sys.executable)


def ensure_lab_env(root: Path) -> Path:
    """The lab environment's Python, set up (or brought up to date) first when needed."""
    python, stamp = root / "bin" / "python", root / venvs.STAMP
    wanted = lab_stamp()
    if python.exists() and stamp.is_file() and stamp.read_text().strip() == wanted:
        return python
    where = Location(str(LAB_REQUIREMENTS))
    failed = f"the JupyterLab environment could not be set up in {root}"
    if not python.exists():
        installer.make_venv(root, where, failed, clear=True)
    stamp.unlink(missing_ok=True)
    for args in (
        [f"--requirement={LAB_REQUIREMENTS}"],
        ["--no-deps", f"--editable={IMPORT_ROOT}"],
    ):
        installer.install(python, args, where, failed)
    write_atomic(stamp, wanted + "\n")
    return python


def lab_command(python: Path, config_file: Path, port: int, extra: list[str]) -> list[str]:
    """The JupyterLab command line; ``extra`` options go to JupyterLab as given."""
    command = [str(python), "-m", "jupyterlab", f"--config={config_file}"]
    return [*command, *([f"--port={port}"] if port else []), *extra]


def lab_environ(jupyter_path: str) -> dict[str, str]:
    return {**os.environ, "JUPYTER_PATH": jupyter_path.strip(os.pathsep)}


def lab_frameworks(book: Book, tabs: tuple[str, ...]) -> tuple[str, ...]:
    """The frameworks whose kernels the lab offers: ``tabs`` first, then the book's others."""
    return tuple(dict.fromkeys((*tabs, *book.tabs)))


def run_lab(
    book: Book, found: list[Environment], framework: str, port: int, extra: list[str]
) -> int:
    """Run JupyterLab until it stops, with the kernels of ``found`` (the environments of
    :func:`lab_frameworks`, set up); pages open with ``framework``'s."""
    kernels = [env.kernel_name for env in found]
    config_file = write_lab_config(book, kernels, framework)
    # Jupyter finds kernels in <each JUPYTER_PATH folder>/kernels: the environments' folder.
    places = dict.fromkeys(str(env.kernels_dir.parent) for env in found)
    path = os.pathsep.join([*places, os.environ.get("JUPYTER_PATH", "")])
    python = lab_python(book.envs)
    lab = subprocess.Popen(lab_command(python, config_file, port, extra), env=lab_environ(path))
    try:
        return lab.wait()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the server stops its kernels, then exits
        lab.terminate()
        lab.wait()
        raise


def install_user_kernels(found: list[Environment]) -> list[Path]:
    """Copy the kernelspecs of ``found`` (environments set up) into the user's Jupyter path;
    where each went."""
    from jupyter_client.kernelspec import KernelSpecManager

    manager = KernelSpecManager()
    placed = []
    for env in found:
        source = env.kernels_dir / env.kernel_name
        placed.append(Path(manager.install_kernel_spec(str(source), env.kernel_name, user=True)))
    return placed
