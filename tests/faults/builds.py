"""What the fault modules share: builds run as processes, waiting on them, and the book's
files as they were (to show that a fault changed nothing)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ..books import cells_book

CELL = "```{{.python .input}}\n{code}\n```\n"
SCRIPTED_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
    ' width="20" height="20" onload="alert(1)">'
    "<script>alert(2)</script>"
    "<style>rect { fill: red }</style><style>@import url(https://example.com/x.css);</style>"
    '<rect width="20" height="20" onclick="alert(3)" style="stroke: blue"/>'
    '<a xlink:href="javascript:alert(4)"><circle r="2"/></a>'
    '<use href="#r"/><image href="https://example.com/t.png"/>'
    '<set attributeName="onmouseover" to="alert(5)"/>'
    "<foreignObject><div xmlns='http://www.w3.org/1999/xhtml'>x</div></foreignObject>"
    "</svg>"
)


def write_page(root: Path, name: str, prose: str, code: str) -> None:
    (root / f"{name}.md").write_text(f"# {name}\n\n{prose}\n\n" + CELL.format(code=code))


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def checksums(root: Path) -> dict[str, str]:
    """Hashes of every file of the book outside _build/."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "_build" not in p.relative_to(root).parts
    }


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.pbtmp")]


def polybook(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), *args]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def wait_for(condition: Callable[[], bool], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting")
        time.sleep(0.1)


def saved_book(root: Path, functions: int) -> Path:
    """A book whose library has ``functions`` saved functions."""
    code = "\n".join(f"def f{i}(x):  #@save\n    return x + {i}\n" for i in range(functions))
    use = "from d2l import torch as d2l\nprint(d2l.f1(1))"
    return cells_book(root, {"lib": code, "use": use})
