"""Failing safely: signals, two builds at once, a broken environment, an unwritable _build/,
and kernels that write to the worker's stdout. After each, the sources and the last good
library are intact, no half-written file is left, and the next build completes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.environments import venvs
from polybook.layout import EnvsFolder

from ..books import cache_entries, cells_book, looks_installed, processes_in

pytestmark = pytest.mark.slow


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


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_execution_keeps_finished_results_and_leaves_no_kernel(
    tmp_path: Path, signum: int
) -> None:
    root = cells_book(
        tmp_path / "book", {"quick": "print('quick')", "stuck": "import time\ntime.sleep(600)"}
    )
    build = polybook(root, "build", "eval")
    wait_for(lambda: bool(cache_entries(root)))
    before = checksums(root)  # the library is written before anything runs
    time.sleep(1)  # the stuck notebook's kernel reaches its cell
    build.send_signal(signum)
    _, err = build.communicate(timeout=60)
    assert build.returncode == (130 if signum == signal.SIGINT else 143), err
    assert len(cache_entries(root)) == 1
    wait_for(lambda: not processes_in(root), 10)
    assert checksums(root) == before
    assert temp_files(root) == []
    # The next build takes the finished notebook from the cache and runs the other one.
    (root / "stuck.md").write_text("# stuck\n\n```{.python .input}\nprint('unstuck')\n```\n")
    report = tmp_path / "report.json"
    assert main(["--quiet", "--root", str(root), "build", "eval", "--report", str(report)]) == 0
    summary = json.loads(report.read_text())
    assert summary["cached"] == 1 and [r[0] for r in summary["ran"]] == ["stuck.md"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_library_is_written_leaves_the_old_or_the_new_library(
    tmp_path: Path, signum: int
) -> None:
    root = saved_book(tmp_path / "book", 3000)
    library = root / "d2l" / "torch.py"
    library.parent.mkdir()
    library.write_text("# the last good library\n")
    old = library.read_bytes()
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    new = library.read_bytes()
    library.write_bytes(old)
    sources = checksums(root)
    for delay in (0.2, 0.5, 0.8, 1.1, 1.4):
        build = polybook(root, "build", "lib")
        time.sleep(delay)
        build.send_signal(signum)
        build.communicate(timeout=60)
        assert build.returncode in (0, 130, 143, -signum)  # -signum: before main() ran
        assert library.read_bytes() in (old, new)  # never a half-written file
        assert temp_files(root) == []
        library.write_bytes(old)
        assert checksums(root) == sources
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 0
    assert library.read_bytes() == new


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


def fake_environment(envs_dir: Path) -> None:
    """A pytorch environment that looks set up but whose Python has no ipykernel."""
    env = looks_installed(venvs.environment("pytorch", "cpu", EnvsFolder(envs_dir, shared=True)))
    venvs.write_kernelspec(env)


def book_with_envs_dir(tmp_path: Path) -> Path:
    """A one-page book whose environments live in ``tmp_path/envs`` (empty so far)."""
    root = cells_book(tmp_path / "book", {"page": "print(1)"})
    with (root / "config.ini").open("a") as handle:
        handle.write(f"envs_dir = {tmp_path / 'envs'}\n")
    return root


def test_a_broken_environment_is_reported_at_the_notebook_with_the_repair_command(
    tmp_path: Path,
) -> None:
    root = book_with_envs_dir(tmp_path)
    fake_environment(tmp_path / "envs")
    build = polybook(root, "build", "eval")
    _, err = build.communicate(timeout=180)
    assert build.returncode == 1
    assert "page.md [pytorch]: the pytorch kernel could not run the notebook" in err
    assert "`polybook env setup --tab pytorch` repairs it" in err
    assert "[polybook.exec.kernel]" in err
    assert "worker process died" not in err
    # Repaired (here: the book's own environments again), the next build completes.
    config = (root / "config.ini").read_text().splitlines()
    (root / "config.ini").write_text("\n".join(x for x in config if "envs_dir" not in x))
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 0


def test_an_environment_that_cannot_be_set_up_names_the_framework_and_the_command(
    tmp_path: Path,
) -> None:
    root = book_with_envs_dir(tmp_path)
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path), "PIP_CONFIG_FILE": os.devnull}
    build = polybook(root, "build", "eval", env=offline)
    _, err = build.communicate(timeout=300)
    assert build.returncode == 1
    assert "the pytorch environment could not be set up" in err
    assert "polybook env setup --tab pytorch" in err


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


def test_a_kernel_writing_to_file_descriptor_one_cannot_corrupt_the_worker_protocol(
    tmp_path: Path,
) -> None:
    code = "import os\nos.write(1, b'done\\ndone\\n')\nos.write(2, b'noise\\n')\nprint('after')"
    root = cells_book(tmp_path / "book", {"noisy": code, "calm": "print('calm')"})
    assert main(["--quiet", "--root", str(root), "build", "eval"]) == 0
    assert "after\n" in printed(root / "_build/eval/pytorch/noisy.ipynb")
    assert "calm\n" in printed(root / "_build/eval/pytorch/calm.ipynb")


def printed(notebook: Path) -> str:
    """What the cells of an executed notebook printed."""
    cells = json.loads(notebook.read_text())["cells"]
    return "".join(o.get("text", "") for c in cells for o in c.get("outputs", []))


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
