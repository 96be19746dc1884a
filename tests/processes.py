"""Real processes as the tests see them, read from ``/proc`` (Linux): whether one runs, its
descendants, its program and the CPU time it used; and a notebook run as a student runs it."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parent = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(proc.name))
    found: set[int] = set()
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def until(condition: Callable[[], bool], seconds: float) -> bool:
    """Whether ``condition()`` holds within ``seconds`` (asked every 50 ms)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def program(pid: int) -> str:
    """The name of ``pid``'s program ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


# nbclient in a process of its own, as a student's Jupyter runs a notebook: its kernel from a
# folder of kernelspecs; with ``allow`` errors are kept in the cells' outputs, the run goes on.
NOTEBOOK_RUNNER = """
import sys
import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

path, kernels, cwd, allow = sys.argv[1:]
nb = nbformat.read(path, as_version=4)
km = KernelManager(
    kernel_name=nb.metadata.kernelspec.name,
    kernel_spec_manager=KernelSpecManager(kernel_dirs=[kernels]),
)
client = NotebookClient(
    nb, km=km, timeout=600, allow_errors=allow == "allow", shutdown_kernel="immediate"
)
client.execute(cwd=cwd)
nbformat.write(nb, path)
"""


def notebook_run(path: Path, kernels: Path, cwd: Path, allow_errors: bool = False) -> list[str]:
    """The command that runs the notebook at ``path`` with :data:`NOTEBOOK_RUNNER`."""
    allow = "allow" if allow_errors else "stop"
    return [sys.executable, "-c", NOTEBOOK_RUNNER, str(path), str(kernels), str(cwd), allow]
