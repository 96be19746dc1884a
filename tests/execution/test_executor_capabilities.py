"""What an executor can do is said by its registry entry, and asked there: no module outside
the registry compares an executor's name, and a new entry with local's module is local to
every stage (whether the book's code runs, the side build, the head start)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.config.executors import EXECUTORS, capabilities, registered, side_executor

from ..books import pages_book, with_build

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "polybook" / "config" / "executors.py"


def _names_executor(node: ast.expr) -> bool:
    """``executor``, ``x.executor``, ``x["executor"]``."""
    if isinstance(node, ast.Name):
        return node.id == "executor"
    if isinstance(node, ast.Attribute):
        return node.attr == "executor"
    return isinstance(node, ast.Subscript) and _literal(node.slice) == "executor"


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def executor_names_compared(tree: ast.AST) -> list[int]:
    """The lines where an executor is compared with, or set to, a name written out."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = any(_names_executor(side) for side in sides)
            written = any(_literal(side) is not None for side in sides) or any(
                isinstance(side, ast.Tuple | ast.List | ast.Set)
                and any(_literal(e) is not None for e in side.elts)
                for side in sides
            )
            if named and written:
                lines.append(node.lineno)
        if isinstance(node, ast.keyword) and node.arg == "executor" and _literal(node.value):
            lines.append(node.value.lineno)
    return lines


def test_the_check_finds_a_name_compared_or_set() -> None:
    for text in (
        'local = build.executor == "local"',
        'runs = config.build.executor != "none"',
        'if "dask" == executor: pass',
        'x = executor in ("local", "dask")',
        'side = replace(build, cache="", executor="local")',
    ):
        assert executor_names_compared(ast.parse(text)) == [1], text
    assert executor_names_compared(ast.parse("runs = capabilities(build.executor).runs_code")) == []


def test_no_module_outside_the_registry_compares_an_executor_name() -> None:
    found = []
    for path in sorted((REPO / "polybook").rglob("*.py")):
        if path == REGISTRY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(REPO)}:{line}" for line in executor_names_compared(tree)]
    assert not found, "ask polybook.config.executors instead: " + ", ".join(found)


def test_a_local_variant_is_local_to_every_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = replace(EXECUTORS["local"], help="the local executor under another name")
    monkeypatch.setitem(EXECUTORS, "here", variant)
    config = load_config(pages_book(tmp_path, {"a": "# A\n"}))
    here = with_build(config, executor="here")
    assert here.book.runs_book_code  # its Sphinx may load the book's extensions
    assert side_executor("here") == "here"  # its side builds run in it
    assert capabilities("here").head_start and capabilities("here").uses_zygotes
    assert "here" in registered()


def test_what_an_executor_does_decides_not_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(pages_book(tmp_path, {"a": "# A\n"}))
    monkeypatch.setitem(EXECUTORS, "nowhere", replace(EXECUTORS["none"], help="nothing runs"))
    assert not with_build(config, executor="nowhere").book.runs_book_code
    assert with_build(config, executor="nowhere", eval_notebook=True).trusted is False
    assert side_executor("dask") == "local"  # the cluster holds no side environment
    assert side_executor("nowhere") == "local"
    assert not capabilities("dusk").runs_code  # an unknown name (refused at the book's open)
