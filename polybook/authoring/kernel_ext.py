"""The IPython extension of polybook's kernels: one book page runs as one framework's.

Loaded by each framework's kernelspec (``POLYBOOK_FRAMEWORK`` names the framework). Before
a cell runs:

- a first line ``%%tab pytorch, jax`` (or ``#@tab …``) lets the cell run only where the
  kernel's framework is listed (``%%tab all``: always); a cell for other frameworks runs
  nothing and says so;
- ``if tab.selected(...)`` chains are decided for the kernel's framework by the build's
  own code (:func:`polybook.source.selected.select_branches`); dropped lines become blank
  lines, so tracebacks keep the cell's line numbers. ``tab.selected(...)`` also answers
  directly.

``d2l`` is the book's: the book (the folder with ``config.ini`` above the kernel's working
folder) goes on ``sys.path`` right after ``PYTHONPATH``, unless ``PYTHONPATH`` already
holds a ``d2l`` package (the build's library snapshot). After a cell with ``#@save`` runs,
the names it saves (read by the build's extraction, in the Python that runs polybook) are
set on the imported ``d2l.<framework>`` module, so later cells see the edited code.

Only the standard library, IPython and stdlib-only polybook modules are imported here:
the framework environments do not have polybook's dependencies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.interactiveshell import ExecutionResult, InteractiveShell

from polybook.config import find_book_root
from polybook.config.declarations import SHIPPED
from polybook.diagnostics import PolybookError
from polybook.source.marks import D2LBOOK_PLUMBING, TAB_LINE
from polybook.source.selected import SELECTED, select_branches

FRAMEWORK_VAR = "POLYBOOK_FRAMEWORK"
PYTHON_VAR = "POLYBOOK_PYTHON"  # the Python that runs polybook
TABS_VAR = "POLYBOOK_TABS"  # the book's tabs, beside polybook's own frameworks
MODULE_VAR = "POLYBOOK_MODULE"  # the module of this framework's library
SAVE = "@save"


def known_tabs() -> tuple[str, ...]:
    """polybook's frameworks, the book's tabs and this kernel's framework."""
    named = [*SHIPPED, *os.environ.get(TABS_VAR, "").replace(",", " ").split()]
    return tuple(n for n in dict.fromkeys([*named, os.environ.get(FRAMEWORK_VAR, "")]) if n)


class Tab:
    """``tab`` in the kernel's namespace: ``tab.selected('jax')`` for this kernel."""

    def __init__(self, framework: str) -> None:
        self.framework = framework

    def selected(self, *names: str | list[str] | tuple[str, ...]) -> bool:
        flat: list[Any] = (
            list(names[0]) if len(names) == 1 and not isinstance(names[0], str) else list(names)
        )
        unknown = [n for n in flat if not isinstance(n, str) or n not in known_tabs()]
        if not flat or unknown:
            known = ", ".join(known_tabs())
            raise ValueError(
                f"tab.selected() takes framework names ({known}), not {unknown or flat}"
            )
        return self.framework in flat

    def __repr__(self) -> str:
        return f"<polybook tab: {self.framework}>"


def tab_names(spec: str) -> tuple[str, ...]:
    """``"pytorch, jax"`` -> names; ``"all"`` -> every framework; UsageError when unknown."""
    names = tuple(n for n in spec.replace(",", " ").split() if n)
    if names == ("all",):
        return known_tabs()
    unknown = [n for n in names if n not in known_tabs()]
    if not names or unknown:
        raise UsageError(
            f"%%tab names {unknown[0]!r}, not a framework"
            if unknown
            else "%%tab names no framework"
        )
    return names


class Extension:
    """The state of the extension in one kernel."""

    def __init__(self, shell: InteractiveShell, framework: str) -> None:
        self.shell = shell
        self.framework = framework
        self.book = _book_library()

    def runs(self, lines: list[str]) -> bool:
        """Whether a cell (as lines) is for this kernel's framework."""
        match = TAB_LINE.match(lines[0]) if lines else None
        return match is None or self.framework in tab_names(match.group(1))

    def transform(self, lines: list[str]) -> list[str]:
        """The cell as this framework runs it (an IPython cleanup transformer)."""
        if not self.runs(lines):
            return []
        texts = [line.rstrip("\n") for line in lines]
        texts = ["" if D2LBOOK_PLUMBING.match(t) or TAB_LINE.match(t) else t for t in texts]
        if any(SELECTED in t for t in texts):
            texts = self.select(texts)
        return [t + "\n" for t in texts]

    def select(self, texts: list[str]) -> list[str]:
        """``tab.selected`` chains decided; a cell the build rejects runs as written."""
        numbered = list(enumerate(texts, start=1))
        try:
            kept = select_branches(numbered, self.framework, "cell", known_tabs())
        except (PolybookError, ImportError):
            return texts  # pre_run_cell says why
        out = [""] * len(texts)
        numbers = [n for n, _ in kept]
        if numbers != sorted(set(numbers)):
            return [t for _, t in kept]
        for number, text in kept:
            out[number - 1] = text
        return out

    def pre_run_cell(self, info: Any) -> None:
        lines = str(info.raw_cell or "").splitlines()
        try:
            runs = self.runs(lines)
        except UsageError:
            return  # the transformer reports it
        if not runs:
            print(f"[{lines[0].strip()}: not run in the {self.framework} kernel]")
        elif any(SELECTED in t for t in lines):
            try:
                select_branches(list(enumerate(lines, 1)), self.framework, "cell", known_tabs())
            except PolybookError as err:
                print(f"polybook: the build rejects this cell: {err.diagnostic}", file=sys.stderr)
            except ImportError:  # its message needs markdown-it, which this kernel may lack
                print("polybook: tab.selected() names an unknown framework", file=sys.stderr)

    def post_run_cell(self, result: ExecutionResult) -> None:
        source = str(getattr(result.info, "raw_cell", "") or "")
        if not result.success or SAVE not in source or self.book is None:
            return
        if not self.runs(source.splitlines()):
            return
        module = sys.modules.get(f"d2l.{os.environ.get(MODULE_VAR, self.framework)}")
        where = getattr(module, "__file__", None) or ""
        if module is None or not Path(where).resolve().is_relative_to(self.book):
            return
        user = self.shell.user_ns
        for name in self.saved_names(source):
            if name in user:
                setattr(module, name, user[name])

    def saved_names(self, source: str) -> list[str]:
        """Module-level names the cell's ``#@save`` marks send to the library."""
        python = os.environ.get(PYTHON_VAR, "")
        if not python:
            return []
        command = [python, "-m", "polybook.authoring.saves", self.framework]
        done = subprocess.run(command, input=source, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"polybook: {done.stderr.strip()}", file=sys.stderr)
            return []
        names: list[str] = json.loads(done.stdout)
        return names


def _book_library() -> Path | None:
    """Put the book on ``sys.path`` (after ``PYTHONPATH``); the book's root, or None."""
    given = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if any(Path(p, "d2l", "__init__.py").is_file() for p in given):
        return None  # the build's own library snapshot
    try:
        root = find_book_root(Path.cwd())
    except PolybookError:
        return None
    after = [i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in given]
    if str(root) not in sys.path:
        sys.path.insert(max(after, default=0), str(root))
    return root


def load_ipython_extension(shell: InteractiveShell) -> None:
    framework = os.environ.get(FRAMEWORK_VAR, "")
    if not framework.isidentifier():
        return
    ext = Extension(shell, framework)
    shell.input_transformers_cleanup.append(ext.transform)
    shell.events.register("pre_run_cell", ext.pre_run_cell)
    shell.events.register("post_run_cell", ext.post_run_cell)
    shell.user_ns["tab"] = shell.user_ns_hidden["tab"] = Tab(framework)


def main() -> None:
    """The kernel: ipykernel with this extension (the kernelspec's entry point)."""
    from ipykernel.kernelapp import IPKernelApp

    if sys.path and sys.path[0] == "":  # as ipykernel_launcher does
        del sys.path[0]
    IPKernelApp.launch_instance(extensions=[__name__])
