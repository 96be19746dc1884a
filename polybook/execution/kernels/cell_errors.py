"""What a failed run says: a cell's error (:class:`CellError`) with its place in the
Markdown, a package the environment lacks, a download the host could not make, a cell's time
limit and how a process ended."""

from __future__ import annotations

import re
import signal
from typing import Any

from nbformat import NotebookNode

from polybook.diagnostics import Location, PolybookError
from polybook.execution.kernels.download_errors import download_message, failed_download
from polybook.meta import cell_meta, notebook_meta
from polybook.nb import strip_ansi

CELL_LINE = re.compile(r"(?:Cell In\[\d+\]|<ipython-input-\d+-\w+>), line (\d+)")


class CellError(PolybookError):
    """A cell failed: carries its source, ``ename``, ``evalue``, the traceback and the
    notebook as far as it ran."""

    def __init__(
        self,
        location: Location,
        ename: str,
        evalue: str,
        source: str,
        traceback: str,
        notebook: NotebookNode | None = None,
        printed: str = "",
    ) -> None:
        self.ename, self.evalue, self.source, self.traceback = ename, evalue, source, traceback
        self.notebook = notebook
        message = f"{ename}: {evalue}" if ename else evalue
        missing = missing_package(ename, evalue)
        url = failed_download(ename, evalue, traceback, printed)
        subtype = "exec.missing_package" if missing else "exec"
        if missing:
            message += "; " + missing_package_hint(missing, location.framework)
        elif url is not None:
            message, subtype = download_message(url, ename), "exec.download"
        super().__init__(location, message, subtype)


MISSING_MODULE = re.compile(r"^No module named '([A-Za-z_][\w]*)")


def missing_package(ename: str, evalue: str) -> str:
    """The top-level module a ``ModuleNotFoundError`` names, unless it is the book's own."""
    found = MISSING_MODULE.match(evalue) if ename == "ModuleNotFoundError" else None
    return found.group(1) if found and found.group(1) != "d2l" else ""


def missing_package_hint(module: str, framework: str) -> str:
    """How a book adds a package its notebooks import to the framework's environment."""
    return (
        f"the {framework} environment lacks {module!r}: pin its package (e.g. {module}==VERSION)"
        " in a requirement file named by [build] requirements in config.ini (`FILE` for every"
        f" framework, `{framework}:FILE` for this one), then run"
        f" `polybook env setup --tab {framework}`"
    )


def timeout_origin(cell: NotebookNode, default: int) -> str:
    """The limit of a cell and where it was set, for messages."""
    meta = cell_meta(cell)
    if meta.timeout:
        return f"{meta.timeout} s, set by `#@timeout {meta.timeout}`"
    return f"{default} s, set by [build] cell_timeout"


def exit_status(process: Any) -> str:
    """How a process (a ``Popen``) ended: ``exit code 3``, ``killed by signal 9 (SIGKILL)``;
    "" while it runs or where it is unknown."""
    code = process.poll() if process is not None else None
    if code is None:
        return ""
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = "unknown"
    memory = ": the system may have run out of memory" if -code == signal.SIGKILL else ""
    return f"killed by signal {-code} ({name}){memory}"


def cell_error(
    exc: Exception,
    work: NotebookNode,
    index: int,
    framework: str,
    default_timeout: int,
    kernel: Any = None,
) -> CellError:
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    source = work.cells[index].source
    if isinstance(exc, CellExecutionError):
        where = cell_location(work, index, framework, exc.traceback)
        printed = "".join(str(out.get("text", "")) for out in work.cells[index].get("outputs", []))
        return CellError(where, exc.ename, exc.evalue, source, exc.traceback, work, printed)
    where = cell_location(work, index, framework, "")
    if isinstance(exc, CellTimeoutError):
        limit = timeout_origin(work.cells[index], default_timeout)
        message = f"the cell timed out (limit {limit})"
        return CellError(where, "CellTimeoutError", message, source, "", work)
    ended = exit_status(kernel)
    message = f"the kernel died: {ended}" if ended else "the kernel died"
    return CellError(where, "DeadKernelError", message, source, "", work)


def cell_location(nb: NotebookNode, index: int, framework: str, traceback: str) -> Location:
    cell = nb.cells[index]
    meta = cell_meta(cell)
    hits = CELL_LINE.findall(strip_ansi(traceback))
    line = meta.source_line(int(hits[-1])) if hits else meta.line
    code_number = sum(1 for c in nb.cells[: index + 1] if c.cell_type == "code")
    path = notebook_meta(nb).source or "<notebook>"
    return Location(path, line, framework, code_number)
