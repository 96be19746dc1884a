"""Books whose frameworks are tiny ones declared as data (a small pure-Python package, with
ipykernel where notebooks run), their environments in the book's own ``.envs``; and
``polybook`` run on them in a child process. Shared by the environment and installer tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from polybook.config import load_config
from polybook.environments import venvs

from .books import FENCE, pages_book, write_book

FRAMEWORKS = {  # name: (module, pins)
    "tiny": ("tabulate", "tabulate==0.9.0\nipykernel==7.1.0\n"),
    "mini": ("toolz", "toolz==1.2.0\nipykernel==7.1.0\n"),
    "bare": ("toolz", "toolz==1.2.0\n"),  # no kernel: set up with --no-verify
    "flat": ("tabulate", "tabulate==0.9.0\n"),  # no kernel either
}


def tiny_book(root: Path, tabs: str, envs_dir: str = ".envs") -> Path:
    """A one-page book of ``tabs`` (of :data:`FRAMEWORKS`), its environments in ``envs_dir``."""
    sections = "".join(
        f"\n[framework-{name}]\nmodule = {module}\ncpu_requirements = requirements/{name}.txt\n"
        for name, (module, _) in FRAMEWORKS.items()
    )
    config = f"[project]\nname = tiny\n\n[build]\ntabs = {tabs}\nenvs_dir = {envs_dir}\n"
    cells = "".join(
        f"{FENCE}{{.python .input}}\n%%tab {name}\nimport {FRAMEWORKS[name][0]}\n"
        f"print('{name}', {FRAMEWORKS[name][0]}.__name__)\n{FENCE}\n\n"
        for name in (t.strip() for t in tabs.split(","))
    )
    pages_book(root, {"page": cells}, config + sections)
    requirements = {f"requirements/{n}.txt": pins for n, (_, pins) in FRAMEWORKS.items()}
    return write_book(root, requirements, None)


def environment(root: Path, name: str) -> venvs.Environment:
    config = load_config(root)
    extras = config.extra_requirements(name)
    return venvs.book_environment(config.book, name, "cpu", config.envs, extras)


def polybook(root: Path, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "polybook", "--root", str(root), *args]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    process = polybook(root, *args)
    out, err = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
