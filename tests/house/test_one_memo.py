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
    "plugins.py": "the entry points installed",
    "pipeline/registry.py": "the plugins' outputs, as installed",
    "config/executors.py": "the plugins' executors, as installed",
    "render/messages.py": "the tool's message catalogs",
    "lifeline.py": "the C library the process runs on",
    "environments/gpu_info.py": "the host's GPUs, asked once",
    "environments/devices.py": "the host's GPUs, and a warning said once",
    "environments/installer.py": "the installer $POLYBOOK_INSTALLER chose",
    "execution/executors/remote_job.py": "a worker's environments and zygotes, for its life",
    "render/sphinx/config.py": "the versions of the packages that shape the pages, installed",
    "pipeline/state.py": "the tool's own files, as the process loaded them",
    "site/settings.py": "the site's own code and static files, as the process loaded them",
    "site/math_prefetch.py": "MyST's parser with the site's syntax, the same for every page",
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


# Module-level containers that are not results kept by what they read: each with why.
STATE = {
    "environments/installer.py _said": "warnings said once per process",
    "execution/kernels/head_start.py _AHEAD": "pools of kernels started ahead, alive",
    "parallel.py _work": "what forked workers inherit and run",
    "render/sphinx/deferred.py _TASKS": "writes deferred until the page is out",
    "render/sphinx/deferred.py _LAST": "writes deferred until the page is out",
    "render/sphinx/failures.py FAILED_PAGES": "this Sphinx process's pages that failed",
    "site/links.py _CHECKED": "the last link check, which the next one updates",
}
EMPTY_CALLS = {"dict", "set", "list", "OrderedDict", "defaultdict"}


def _module_containers(path: Path) -> set[str]:
    """The names a module binds at its top level to an empty dict, set or list."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets: list[ast.expr]
        if isinstance(node, ast.Assign):
            value, targets = node.value, node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            value, targets = node.value, [node.target]
        else:
            continue
        empty = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, (ast.List, ast.Set)) and not value.elts
        )
        called = (
            ast.unparse(value.func).split(".")[-1]
            if isinstance(value, ast.Call) and not value.args and not value.keywords
            else ""
        )
        if empty or called in EMPTY_CALLS:
            found.update(ast.unparse(target) for target in targets)
    return found


def test_results_kept_between_builds_are_in_the_one_memo_not_module_dicts() -> None:
    found = {
        f"{p.relative_to(POLYBOOK).as_posix()} {name}"
        for p in POLYBOOK.rglob("*.py")
        for name in _module_containers(p)
    }
    assert found == set(STATE), "keep a result in polybook.memo (Memo, FileMemo)"


def test_a_file_memo_reads_a_file_again_once_it_is_written(tmp_path: Path) -> None:
    from polybook.memo import FileMemo

    page = tmp_path / "page.md"
    page.write_text("one", encoding="utf-8")
    memo: FileMemo[str] = FileMemo(4)
    reads: list[str] = []

    def read() -> str:
        reads.append(page.read_text(encoding="utf-8"))
        return reads[-1]

    assert [memo.value([page], read), memo.value([page], read)] == ["one", "one"]
    page.write_text("two", encoding="utf-8")  # the same size: its inode and times tell
    assert memo.value([page], read) == "two" and reads == ["one", "two"]
    assert memo.known([page]) == "two" and memo.known([page], key="other") is None
    page.unlink()
    assert memo.known([page]) is None
