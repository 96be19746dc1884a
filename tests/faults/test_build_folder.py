"""Faults of the build folder: two builds on one book (the second waits for the first,
naming it), an unwritable ``_build/`` (a clear error, nothing lost, the next build
completes), and the permissions of what a build writes (the umask's, or the file's own)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from polybook.commands.cli import main

from ..books import cache_entries, cells_book
from .builds import checksums, polybook, saved_book, temp_files, wait_for

pytestmark = pytest.mark.slow


def test_a_second_build_on_the_same_tree_waits_for_the_first(tmp_path: Path) -> None:
    root = cells_book(tmp_path / "book", {"slow": "import time\ntime.sleep(4)\nprint('slept')"})
    sources = checksums(root)
    first = polybook(root, "build", "eval")
    wait_for((root / "_build" / "work").is_dir)
    second = polybook(root, "build", "eval")
    _, second_err = second.communicate(timeout=120)
    _, first_err = first.communicate(timeout=120)
    assert first.returncode == 0, first_err
    assert second.returncode == 0, second_err
    assert f"waiting for the build that holds {root / '_build' / '.lock'} (pid {first.pid})" in (
        second_err
    )
    assert len(cache_entries(root)) == 1  # the second found the first's result
    assert temp_files(root) == []
    assert {k: v for k, v in checksums(root).items() if not k.startswith("d2l/")} == sources


class ReadOnly:
    """Makes folders unwritable, also for root (``chattr +i``), and writable again."""

    def __init__(self) -> None:
        self.root = os.geteuid() == 0
        self.folders: list[Path] = []

    def lock(self, folder: Path) -> None:
        if self.root and not shutil.which("chattr"):
            pytest.skip("root, and no chattr to make a folder unwritable")
        flag = ["chattr", "+i"] if self.root else ["chmod", "a-w"]
        subprocess.run([*flag, *_entries(folder)], check=True)
        self.folders.append(folder)

    def unlock(self, folder: Path) -> None:
        flag = ["chattr", "-i"] if self.root else ["chmod", "u+w"]
        subprocess.run([*flag, *_entries(folder)], check=True)
        self.folders.remove(folder)


def _entries(folder: Path) -> list[str]:
    """``folder`` and what it holds, not links (a build links its shared data folder: chattr
    refuses a link, and the folder it points to is not the build's)."""
    found = [str(folder)]
    for parent, folders, files in os.walk(folder):
        found += [os.path.join(parent, n) for n in folders + files]
    return [p for p in found if not os.path.islink(p)]


@pytest.fixture
def read_only() -> Iterator[ReadOnly]:
    guard = ReadOnly()
    yield guard
    for folder in list(guard.folders):
        guard.unlock(folder)


def test_an_unwritable_build_folder_is_a_clear_error_and_nothing_is_lost(
    tmp_path: Path, read_only: ReadOnly, capsys: pytest.CaptureFixture[str]
) -> None:
    root = saved_book(tmp_path / "book", 2)
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 0
    use = "from d2l import torch as d2l\nprint(d2l.f0(5))"
    (root / "use.md").write_text(f"# use\n\n```{{.python .input}}\n{use}\n```\n")
    library = (root / "d2l" / "torch.py").read_bytes()
    sources = checksums(root)
    capsys.readouterr()
    read_only.lock(root / "_build")
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 1
    err = capsys.readouterr().err
    assert f"{root / '_build'}: the build folder is not writable" in err
    assert checksums(root) == sources
    assert (root / "d2l" / "torch.py").read_bytes() == library
    read_only.unlock(root / "_build")
    report = tmp_path / "report.json"
    assert main(["--quiet", "--root", str(root), "build", "eval", "--report", str(report)]) == 0
    summary = json.loads(report.read_text())
    assert summary["cached"] == 1 and [r[0] for r in summary["ran"]] == ["use.md"]


def test_written_files_honour_the_umask(tmp_path: Path) -> None:
    from polybook.fsutil import write_atomic

    previous = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.txt", "x")
    finally:
        os.umask(previous)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644
    (tmp_path / "a.txt").chmod(0o640)
    write_atomic(tmp_path / "a.txt", "y")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640


def test_a_new_cache_entry_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    from polybook.fsutil import write_new

    entry = tmp_path / "entry.svg"
    write_new(entry, b"<svg>one</svg>")
    write_new(entry, b"<svg>two</svg>")  # an outdated entry replaced
    assert entry.read_bytes() == b"<svg>two</svg>"

    taken = tmp_path / "taken.svg"  # a folder stands where the entry goes: the rename fails
    taken.mkdir()
    with pytest.raises(OSError):
        write_new(taken, b"<svg>three</svg>")
    assert entry.read_bytes() == b"<svg>two</svg>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.svg", "taken.svg"]
