"""Property-based fuzzing of builds: Hypothesis' profiles, a generated book written to a
temporary folder, a command run on it, and the property every run must hold: it succeeds,
or it reports located errors (``path:line: … [polybook.…]``) and exits 1; never a
traceback, never an exit status but 0 or 1, never a write outside the book's ``_build/``
(and the library files its config names), never a hang.

Profiles: ``fast`` (the default: a few dozen examples per kind, derandomized, so the suite
runs the same examples every time) and ``fuzz`` (``pytest --hypothesis-profile=fuzz``,
``make fuzz``: 10,000 examples per fast kind, failures saved in ``tests/fuzz-examples/``,
which every run replays)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import signal
import subprocess
import sys
import tempfile
import traceback
import unittest
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase

from polybook.commands.cli import main

from .grammar import Book

SAVED = Path(__file__).parent / "fuzz-examples"  # failing examples, committed
REPO = Path(__file__).resolve().parent.parent
FAST_EXAMPLES = 50
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

# Hypothesis's own store (its examples, its constants cache) in a temporary folder, not
# the checkout; the failing examples worth keeping are committed in SAVED (`fuzz`).
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "polybook-hypothesis")
settings.register_profile(
    "fast",
    max_examples=FAST_EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=_QUIET,
)
settings.register_profile(
    "fuzz",
    max_examples=10_000,
    deadline=None,
    database=DirectoryBasedExampleDatabase(SAVED),
    suppress_health_check=_QUIET,
    print_blob=True,
)
settings.load_profile("fast")  # `--hypothesis-profile=fuzz` loads the other after this

# A known bug not yet fixed: (why, what its traceback holds). A run that meets one is
# counted (Hypothesis' events), not failed, so that fuzzing goes on to find others; its
# minimal input is a test of its own, marked xfail.
KNOWN: list[tuple[str, tuple[str, ...]]] = []  # none open

TestFunction = TypeVar("TestFunction", bound=Callable[..., None])


def _profile() -> settings:
    loaded = settings.default
    assert loaded is not None
    return loaded


def fuzzed(
    strategy: st.SearchStrategy[Any], scale: int = 1
) -> Callable[[Callable[[Any], None]], Callable[[], None]]:
    """One test of ``prop``: the examples saved for it in :data:`SAVED` replayed (read only;
    none saved, nothing to replay), then ``given(strategy)`` under the profile loaded
    (``scale``: its examples divided by)."""

    def decorate(prop: Callable[[Any], None]) -> Callable[[], None]:
        fuzz = given(strategy)(prop)
        if scale > 1:
            fuzz = settings(max_examples=max(2, _profile().max_examples // scale))(fuzz)
        replay = _replayed(strategy, prop)

        def test() -> None:
            replay()
            fuzz()

        test.__name__, test.__qualname__, test.__doc__ = prop.__name__, prop.__name__, prop.__doc__
        return test

    return decorate


def _replayed(strategy: st.SearchStrategy[Any], prop: Callable[[Any], None]) -> Callable[[], None]:
    """The examples of ``prop`` saved in :data:`SAVED`, run again: the same property function
    as the fuzzed test's, hence the same key in the database."""
    database = ReadOnlyDatabase(DirectoryBasedExampleDatabase(SAVED))
    only_saved = settings(database=database, derandomize=False, phases=[Phase.reuse])
    replay: Callable[[], None] = only_saved(given(strategy)(prop))

    def run() -> None:
        with contextlib.suppress(unittest.SkipTest):  # Hypothesis: none saved for this property
            replay()

    return run


# A Python traceback, or a frame of one, in what a command printed.
TRACEBACK = re.compile(r'^Traceback \(most recent call last\)|^\s*File "[^"]+", line \d+', re.M)


def shows_traceback(output: str) -> bool:
    return TRACEBACK.search(output) is not None


class Hang(Exception):
    """A command ran past its time."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    code: int
    output: str  # what it printed and logged
    crash: str = ""  # the traceback of an exception that left the command


def run_in_process(root: Path, *argv: str, seconds: int = 60) -> Outcome:
    """``polybook --quiet --root ROOT ARGV`` in this process, its output collected."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logger = logging.getLogger("polybook")
    logger.addHandler(handler)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), time_limit(seconds):
            code = main(["--quiet", "--root", str(root), *argv])
    except Hang:
        return Outcome(-1, out.getvalue(), f"no answer after {seconds} s")
    except SystemExit as exc:  # argparse's errors
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        return Outcome(-1, out.getvalue(), traceback.format_exc())
    finally:
        logger.removeHandler(handler)
    return Outcome(code, out.getvalue())


def run_subprocess(root: Path, *argv: str, seconds: int = 300) -> Outcome:
    """``python -m polybook --quiet --root ROOT ARGV`` in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), *argv]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=seconds, env=env, check=False
        )
    except subprocess.TimeoutExpired as exc:
        return Outcome(-1, str(exc.output or ""), f"no answer after {seconds} s")
    output = done.stdout + done.stderr
    crash = output if shows_traceback(output) else ""
    return Outcome(done.returncode, output, crash)


def write(
    book: Book, root: Path, fill: Callable[[str, str | bytes], str | bytes] | None = None
) -> None:
    """``book``'s files under ``root`` (paths may lead to its siblings: ``../other/``);
    ``fill`` may complete a file's text once the book is there."""
    for rel, content in book.files.items():
        path = Path(os.path.normpath(root / rel))
        path.parent.mkdir(parents=True, exist_ok=True)
        text = fill(rel, content) if fill else content
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)


def digest(folder: Path) -> dict[str, str]:
    """Each file under ``folder`` and its hash, build folders and Python files left out
    (libraries a build writes where the config says)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        skipped = "_build" in rel.parts or "tmp-cache" in rel.parts or path.suffix == ".py"
        if path.is_file() and not skipped:
            found[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def code_key(root: Path, page: str, framework: str = "pytorch") -> str:
    """The code key of ``page``'s notebook in the book at ``root``, as a build makes it (and
    ``polybook freeze`` records)."""
    from polybook.config import load_config
    from polybook.diagnostics import Reporter
    from polybook.execution.cache import CacheKey
    from polybook.library.usage import LibraryUsage

    from .books import libraries

    config = load_config(root)
    notebooks, found = libraries(root, Reporter())
    nb = dict(notebooks[framework])[page]
    usage = LibraryUsage.of(config.book, framework, found[framework])
    return CacheKey.of(nb, framework, usage.key(nb), config.html.figure_format).digest


def known_bug(crash: str) -> str:
    """The reported bug ``crash`` is, or ""."""
    for why, marks in KNOWN:
        if all(mark in crash for mark in marks):
            return why
    return ""


def holds(book: Book, outcome: Outcome, before: dict[str, str], after: dict[str, str]) -> None:
    """The property: success, or located errors and exit 1; no traceback, no write outside."""
    shown = f"{outcome.output}\n{outcome.crash}\nthe book:\n{book.describe()}"
    if outcome.crash:
        why = known_bug(outcome.crash)
        if why:
            event(f"known bug: {why}")
            return
        raise AssertionError(f"crashed:\n{shown}")
    assert not shows_traceback(outcome.output), shown
    assert outcome.code in (0, 1), f"exit status {outcome.code}:\n{shown}"
    if outcome.code == 1:
        assert "[polybook." in outcome.output, f"exit 1 and no located error:\n{shown}"
    changed = sorted(
        path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
    )
    assert not changed, f"written outside _build/: {changed}\n{shown}"
    event(f"exit {outcome.code}")


def check_build(
    book: Book,
    *argv: str,
    fill: Callable[[Path], Callable[[str, str | bytes], str | bytes]] | None = None,
    in_process: bool = True,
) -> Outcome:
    """Write ``book`` to a fresh folder, run ``polybook ARGV`` on it and assert the property;
    the outcome."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as temp:
        folder = Path(temp)
        root = folder / "book"
        write(book, root, fill(root) if fill else None)
        before = digest(folder)
        run = run_in_process if in_process else run_subprocess
        outcome = run(root, *argv)
        holds(book, outcome, before, digest(folder))
        return outcome
