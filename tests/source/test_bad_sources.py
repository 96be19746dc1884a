"""Bad sources: each case gives a clear located message, a non-zero exit, and loses nothing.

A case (``fixtures/bad/NAME.case``) holds the input files of a small book and, after
``=== exit N``, the expected exit status of ``polybook check`` and its diagnostics, one a
line: ``file:line [framework]: message [polybook.kind]``. Files marked ``(escaped)`` are
written from Python escapes (``\\xff``, ``\\r``), for bytes a text fixture cannot hold. The
expected part is written when missing (the test then fails until it is reviewed), or
rewritten with ``POLYBOOK_UPDATE_GOLDEN=1``.

Each case is also built with ``polybook build lib``: its sources and the last good
``d2l/*.py`` must be byte-identical afterwards whenever the check found an error.
"""

from __future__ import annotations

import codecs
import hashlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import write_book
from ..golden import UPDATE

CASES = Path(__file__).parents[1] / "fixtures" / "bad"
EXPECTED = "=== exit "
DEFAULT_FILES = {
    "config.ini": b"[project]\nname = bad\n\n[build]\ntabs = pytorch, jax\n",
    "index.md": b"# Book\n\n```toc\n:maxdepth: 1\n\npage\n```\n",
}
LAST_GOOD = b"# the last good library\n"


@dataclass
class Case:
    files: dict[str, bytes]
    status: int | None
    expected: list[str]
    head: str  # the case file up to its expected part


def read_case(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    head, marker, tail = text.partition(EXPECTED)
    files: dict[str, bytes] = {}
    name, escaped, body = "", False, list[str]()
    for line in [*head.split("\n"), "--- "]:
        if line.startswith("--- "):
            if name:
                content = "\n".join(body).removesuffix("\n") + "\n" if body else ""
                raw = content.encode("utf-8")
                files[name] = codecs.escape_decode(raw)[0] if escaped else raw
            spec = line[4:].strip()
            escaped = spec.endswith("(escaped)")
            name, body = spec.removesuffix("(escaped)").strip(), []
        elif name:
            body.append(line)
    if not marker:
        return Case(files, None, [], head)
    first, _, rest = tail.partition("\n")
    return Case(files, int(first), [x for x in rest.split("\n") if x.strip()], head)


def checksums(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "_build" not in p.parts
    }


def diagnostics(err: str, root: Path) -> list[str]:
    """The located messages in the command's stderr, in order, once each, root-relative."""
    found: list[str] = []
    for raw in err.splitlines():
        line = raw.strip().removeprefix("polybook: ").replace(f"{root}/", "")
        if "[polybook." in line and line not in found:
            found.append(line)
    return found


@pytest.mark.parametrize("path", sorted(CASES.glob("*.case")), ids=lambda p: p.stem)
def test_bad_source(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = read_case(path)
    root = tmp_path / "book"
    files = {**DEFAULT_FILES, "d2l/torch.py": LAST_GOOD, "d2l/jax.py": LAST_GOOD, **case.files}
    write_book(root, files, config=None)
    before = checksums(root)
    status = main(["--quiet", "--root", str(root), "check"])
    found = diagnostics(capsys.readouterr().err, root)
    if UPDATE or case.status is None:
        path.write_text(f"{case.head}{EXPECTED}{status}\n" + "".join(f"{d}\n" for d in found))
        if not UPDATE:
            pytest.fail(f"{path.name} had no expected part; it has been written: review it")
        return
    assert (status, found) == (case.status, case.expected)
    assert checksums(root) == before, "polybook check wrote into the book"
    has_errors = any("[polybook." in d for d in found) and status != 0
    built = main(["--quiet", "--root", str(root), "build", "lib"])
    capsys.readouterr()
    after = checksums(root)
    sources = {k: v for k, v in before.items() if not k.startswith("d2l/")}
    assert {k: v for k, v in after.items() if not k.startswith("d2l/")} == sources
    if has_errors and built != 0:
        assert after == before, "a failed build changed the last good library"
    assert not list(root.rglob("*.pbtmp"))


def test_a_build_prints_each_warning_once(tmp_path: Path) -> None:
    case = read_case(CASES / "unclosed_begin_tab.case")
    root = tmp_path / "book"
    files = {**DEFAULT_FILES, "d2l/torch.py": LAST_GOOD, "d2l/jax.py": LAST_GOOD, **case.files}
    write_book(root, files, config=None)
    command = [sys.executable, "-m", "polybook", "--root", str(root), "build", "lib"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    printed = [line for line in done.stderr.splitlines() if "[polybook." in line]
    assert len(printed) == len(set(printed)) == 1, printed
