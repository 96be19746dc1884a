"""One way a process keeps results (:mod:`polybook.memo`): no module keeps per-book results
in ``functools.lru_cache``; ``functools.cache`` is left to what stays the same while the
installed tool runs on one host, each named here with why."""

from __future__ import annotations

import ast
from pathlib import Path

from polybook.memo import memoised

POLYBOOK = Path(__file__).resolve().parents[2] / "polybook"
# What may stay in functools.cache: constant while the tool runs on one host (or one worker).
CONSTANT = {
    "pipeline/registry.py": "the plugins' outputs, as installed",
    "config/executors.py": "the plugins' executors, as installed",
    "render/messages.py": "the tool's message catalogs",
    "lifeline.py": "the C library the process runs on",
    "environments/gpu_info.py": "the host's GPUs, asked once",
    "environments/devices.py": "the host's GPUs, and a warning said once",
    "environments/installer.py": "the installer $POLYBOOK_INSTALLER chose",
    "execution/executors/remote_job.py": "a worker's environments and zygotes, for its life",
}


def _cached(path: Path) -> set[str]:
    """The functools caches a module's functions are decorated with."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = ast.unparse(target).removeprefix("functools.")
                if name in ("cache", "lru_cache"):
                    found.add(name)
    return found


def test_per_book_results_are_kept_in_the_one_memo_and_cache_only_holds_constants() -> None:
    found = {p.relative_to(POLYBOOK).as_posix(): _cached(p) for p in POLYBOOK.rglob("*.py")}
    assert {path for path, kinds in found.items() if "lru_cache" in kinds} == set()
    assert {path for path, kinds in found.items() if "cache" in kinds} <= set(CONSTANT)


def test_a_memoised_function_keeps_its_results_by_its_arguments() -> None:
    calls: list[tuple[str, int]] = []

    @memoised(2)
    def length(text: str, extra: int = 0) -> int:
        calls.append((text, extra))
        return len(text) + extra

    assert [length("ab"), length("ab"), length("ab", extra=1), length("ab", 1)] == [2, 2, 3, 3]
    assert calls == [("ab", 0), ("ab", 1), ("ab", 1)]  # by keyword or position: told apart
    assert (length.memo.hits, length.memo.misses) == (1, 3)
    length("c")  # two kept: ("ab",) went first, and comes again
    length("ab")
    assert calls[-1] == ("ab", 0)
