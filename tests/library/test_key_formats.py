"""Keys that travel: a cell's and a notebook's key are the same whichever Python (3.10–3.13)
made them (every CPython this machine has, compared on the repository's code); ``_freeze/``
entries keyed with ``ast.dump`` (format 1, whose text each Python writes its own way) are
re-keyed, not called stale; a stale entry says what changed; the H200 run committed with the
shipped book matches its pages. The suite passes on any of those Pythons."""

from __future__ import annotations

import ast
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from nbformat import NotebookNode

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.execution.cache import CacheKey, ExecutionCache
from polybook.execution.frozen_outputs import FrozenOutputs, find_run
from polybook.library.canonical import KEY_FORMAT, canonical, legacy_dump, own_dialect
from polybook.library.usage import LibraryUsage, cell_digest
from polybook.meta import RunInfo, notebook_meta, update_cell_meta, update_notebook_meta
from polybook.nb import new_code_cell, new_notebook
from tools.key_versions import installed
from tools.key_versions import main as compare_keys

from ..books import REPO, chapter_book, code, libraries

SOURCE = (
    "class Net(nn.Module):\n"
    "    def forward(self, x: int = None) -> None:\n"
    "        return f'{x!r:>4}', ...\n"
)
# ast.dump(ast.parse(SOURCE)) as CPython 3.11.7, 3.12.1 and 3.13.0 wrote it (3.10: as 3.11)
DUMPS = {
    "3.11": "Module(body=[ClassDef(name='Net', bases=[Attribute(value=Name(id='nn', ctx=Load()),"
    " attr='Module', ctx=Load())], keywords=[], body=[FunctionDef(name='forward',"
    " args=arguments(posonlyargs=[], args=[arg(arg='self'), arg(arg='x', annotation=Name(id='int',"
    " ctx=Load()))], kwonlyargs=[], kw_defaults=[], defaults=[Constant(value=None)]),"
    " body=[Return(value=Tuple(elts=[JoinedStr(values=[FormattedValue(value=Name(id='x',"
    " ctx=Load()), conversion=114, format_spec=JoinedStr(values=[Constant(value='>4')]))]),"
    " Constant(value=Ellipsis)], ctx=Load()))], decorator_list=[], returns=Constant(value=None))],"
    " decorator_list=[])], type_ignores=[])",
    "3.12": "Module(body=[ClassDef(name='Net', bases=[Attribute(value=Name(id='nn', ctx=Load()),"
    " attr='Module', ctx=Load())], keywords=[], body=[FunctionDef(name='forward',"
    " args=arguments(posonlyargs=[], args=[arg(arg='self'), arg(arg='x', annotation=Name(id='int',"
    " ctx=Load()))], kwonlyargs=[], kw_defaults=[], defaults=[Constant(value=None)]),"
    " body=[Return(value=Tuple(elts=[JoinedStr(values=[FormattedValue(value=Name(id='x',"
    " ctx=Load()), conversion=114, format_spec=JoinedStr(values=[Constant(value='>4')]))]),"
    " Constant(value=Ellipsis)], ctx=Load()))], decorator_list=[], returns=Constant(value=None),"
    " type_params=[])], decorator_list=[], type_params=[])], type_ignores=[])",
    "3.13": "Module(body=[ClassDef(name='Net', bases=[Attribute(value=Name(id='nn', ctx=Load()),"
    " attr='Module', ctx=Load())], body=[FunctionDef(name='forward', args=arguments(args=[arg("
    "arg='self'), arg(arg='x', annotation=Name(id='int', ctx=Load()))],"
    " defaults=[Constant(value=None)]), body=[Return(value=Tuple(elts=[JoinedStr(values=["
    "FormattedValue(value=Name(id='x', ctx=Load()), conversion=114, format_spec=JoinedStr("
    "values=[Constant(value='>4')]))]), Constant(value=Ellipsis)], ctx=Load()))],"
    " returns=Constant(value=None))])])",
}
GPU_CELL = "print(torch.device('cuda:0'))"
SHIPPED_ENTRY = REPO / "_freeze/pytorch/chapter_builders-guide/use-gpu.json"


def as_python(tree: ast.AST, version: str) -> ast.AST:
    """``tree`` (this Python's) shaped as Python ``version`` parses it: 3.12 and later give
    every ``def`` and ``class`` a ``type_params`` field (empty for code without type
    parameters); 3.12 ends an f-string's format spec that ends with a field with an empty
    text."""
    if version < "3.12":
        return tree
    for node in ast.walk(tree):
        kind = type(node)
        definition = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if definition and "type_params" not in kind._fields:  # this Python is older than 3.12
            fields = {"_fields": (*kind._fields, "type_params")}
            node.__class__ = type(kind.__name__, (kind,), fields)
            setattr(node, "type_params", [])  # noqa: B010 (a field 3.11 does not declare)
        spec = node.format_spec if isinstance(node, ast.FormattedValue) else None
        if version == "3.12" and isinstance(spec, ast.JoinedStr) and spec.values:
            last = spec.values[-1]
            spec.values += [ast.Constant(value="")] if isinstance(last, ast.FormattedValue) else []
    return tree


# The f-strings whose format spec ends with a field, that 3.12 parses with an empty text more.
FORMAT_SPECS = 'print(f"{name:<{width}}", f"{x=:{w}.{p}}", f"{a:{b}x}", f"{s!r:}")\n'


def test_a_cells_key_is_the_same_whichever_python_made_it() -> None:
    if sys.version_info[:2] <= (3, 13):  # as this Python writes it (3.10: as 3.11)
        assert ast.dump(ast.parse(SOURCE)) == DUMPS[own_dialect()]
    for source in (SOURCE, FORMAT_SPECS):
        shapes = ("3.10", "3.11", "3.12", "3.13")
        texts = {v: canonical(as_python(ast.parse(source), v)) for v in shapes}
        assert len(set(texts.values())) == 1  # 3.12's field and empty texts count for nothing
    assert "Constant(kind=None, value='')" not in canonical(
        as_python(ast.parse(FORMAT_SPECS), "3.12")
    )
    assert cell_digest('f"{a:{b}}"') != cell_digest('f"{a:{b}x}"')  # a text that says something
    # Format 1 as 3.12.0 and 3.12.1 dumped it, whichever Python parses the cell.
    empty_texts = {v: legacy_dump(ast.parse(FORMAT_SPECS), v).count("value='')") for v in DUMPS}
    assert empty_texts == {"3.11": 0, "3.12": 2, "3.13": 0}
    # The old key hashed ast.dump's text, which each Python writes its own way: the
    # emulation of each (format 1, to re-key old entries) gives what they wrote.
    assert {v: legacy_dump(ast.parse(SOURCE), v) for v in DUMPS} == DUMPS
    assert len(set(DUMPS.values())) == 3
    keys = {cell_digest(SOURCE, v) for v in DUMPS}
    assert len(keys) == 3 and cell_digest(SOURCE) not in keys
    # Comments and layout still do not count; code does.
    assert cell_digest(SOURCE.replace("x: int", "x:int  ")) == cell_digest(SOURCE)
    assert cell_digest(SOURCE.replace("'{x!r:>4}'", "'{x!r:>5}'")) != cell_digest(SOURCE)
    assert cell_digest("None") != cell_digest("...")  # a None the code says is kept


def test_format_1_is_emulated_from_the_tree_of_any_python() -> None:
    # The tree as 3.11, 3.12 or 3.13 parses it (3.12's type_params, its empty texts): the
    # dump of each dialect is the same, the fields and texts a dialect lacked left out.
    for source in (SOURCE, FORMAT_SPECS):
        for dialect in DUMPS:
            dumps = {legacy_dump(as_python(ast.parse(source), v), dialect) for v in DUMPS}
            assert len(dumps) == 1, (source, dialect)
    assert {v: legacy_dump(as_python(ast.parse(SOURCE), "3.12"), v) for v in DUMPS} == DUMPS
    # A field the node lacks (one built by hand) is left out, as ast.dump leaves it out.
    assert legacy_dump(ast.Constant(value=1), "3.11") == "Constant(value=1)"
    assert canonical(ast.Constant(value=1)) == canonical(ast.parse("1").body[0].value)  # type: ignore[attr-defined]


def test_only_an_f_strings_empty_texts_count_for_nothing() -> None:
    assert canonical(ast.parse('x or "" or y')) != canonical(ast.parse("x or y"))
    assert canonical(ast.parse('f"{a}" f""')) == canonical(ast.parse('f"{a}"'))


def test_each_python_is_read_as_the_dump_it_wrote() -> None:
    minors = (10, 11, 12, 13, 14)
    assert [own_dialect(m) for m in minors] == ["3.11", "3.11", "3.12", "3.13", "3.13"]


def notebook(*cells: str, lines: tuple[int, ...] = ()) -> NotebookNode:
    nb = new_notebook()
    for n, source in enumerate(cells):
        cell = new_code_cell(source, f"c{n}")
        update_cell_meta(cell, line=lines[n] if lines else 10 * (n + 1))
        nb.cells.append(cell)
    return nb


def entry_of(nb: NotebookNode, dialect: str, library: str = "lib") -> dict[str, Any]:
    """A ``_freeze/`` entry of ``nb`` as the polybook before key format 2 wrote it, on
    Python ``dialect``."""
    return {
        "format": 1,
        "page": "chap/gpu.md",
        "framework": "pytorch",
        "code": CacheKey.of(nb, "pytorch", library, "svg", dialect).digest,
        "run": {"host_gpus": 1, "device_class": "cuda", "date": "2026-11-27T14:56:40Z"},
        "cells": [
            {"code": cell_digest(c.source, dialect), "line": 10, "outputs": []}
            for c in nb.cells
            if c.cell_type == "code"
        ],
    }


def found(
    tmp_path: Path, entry: dict[str, Any], nb: NotebookNode, library: str = "lib"
) -> tuple[dict[str, Any] | None, list[str]]:
    target = tmp_path / "_freeze/pytorch/chap/gpu.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(entry))
    reporter = Reporter()
    code = CacheKey.of(nb, "pytorch", library, "svg")

    def legacy(dialect: str) -> CacheKey:
        return CacheKey.of(nb, "pytorch", library, "svg", dialect)

    got = FrozenOutputs(tmp_path).find(("chap/gpu.md", "pytorch"), nb, code, legacy, reporter)
    return got, [str(w.message) for w in reporter.warnings]


def test_an_entry_of_the_old_format_is_rekeyed_not_stale(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nb = notebook("import torch", GPU_CELL, "def f():\n    return 1")
    with caplog.at_level(logging.INFO, logger="polybook"):
        got, warned = found(tmp_path, entry_of(nb, "3.12"), nb)
    assert got is not None and warned == []
    assert "re-keyed" in caplog.text and "Python 3.12" in caplog.text


def test_a_stale_entry_says_what_changed(tmp_path: Path) -> None:
    nb = notebook("import torch", GPU_CELL, lines=(10, 20))
    edited = notebook("import torch", GPU_CELL.replace("0", "1"), lines=(10, 20))
    _, warned = found(tmp_path, entry_of(nb, "3.12"), edited)
    assert len(warned) == 1 and "the code of this cell changed since" in warned[0]
    _, warned = found(tmp_path, entry_of(nb, "3.13"), nb, library="other")
    assert len(warned) == 1 and "the library code it uses" in warned[0]
    assert "this cell" not in warned[0]
    # An entry of this format records the parts of its key: what changed is named.
    FrozenOutputs(tmp_path).write("chap/gpu.md", "pytorch", nb, CacheKey.of(nb, "pytorch", "lib"))
    entry = json.loads((tmp_path / "_freeze/pytorch/chap/gpu.json").read_text())
    assert entry["key_format"] == KEY_FORMAT and entry["cells"][1]["source"] == GPU_CELL
    _, warned = found(tmp_path, entry, nb, library="other")
    assert len(warned) == 1 and "the library code it uses changed since" in warned[0]
    _, warned = found(tmp_path, {**entry, "key_format": KEY_FORMAT + 1}, nb)
    assert len(warned) == 1 and f"keyed in format {KEY_FORMAT + 1}" in warned[0]
    assert "stale" not in warned[0]


def test_freeze_rekey_stores_todays_key_once_checked(tmp_path: Path) -> None:
    page = code("import torch") + code("def show():", "    " + GPU_CELL) + code("show()")
    root = chapter_book(tmp_path / "book", {"gpu": page})
    config = load_config(root)
    notebooks, blocks = libraries(root, Reporter())
    nb = next(n for p, n in notebooks["pytorch"] if p == "chap/gpu.md")
    usage = LibraryUsage.of(config.book, "pytorch", blocks.get("pytorch", []))
    old = {
        **entry_of(nb, "3.12", usage.key(nb, "3.12")),
        "code": CacheKey.of(nb, "pytorch", usage.key(nb, "3.12"), "svg", "3.12").digest,
    }
    target = root / "_freeze/pytorch/chap/gpu.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(old))
    assert main(["--quiet", "--root", str(root), "freeze", "--rekey"]) == 0
    entry = json.loads(target.read_text())
    assert entry["key_format"] == KEY_FORMAT
    assert entry["code"] == CacheKey.of(nb, "pytorch", usage.key(nb), "svg").digest
    sources = ["import torch", f"def show():\n    {GPU_CELL}", "show()"]
    assert [c["source"] for c in entry["cells"]] == sources
    assert "from key format 1 (Python 3.12's ast.dump)" in entry["run"]["rekeyed"]


def test_the_shipped_h200_run_matches_the_shipped_pages() -> None:
    config = load_config(REPO)
    notebooks, blocks = libraries(REPO, Reporter())
    checked = 0
    for fw in ("pytorch", "jax"):
        usage = LibraryUsage.of(config.book, fw, blocks[fw])
        for path, nb in notebooks[fw]:
            target = REPO / "_freeze" / fw / path.replace(".md", ".json")
            if not target.is_file():
                continue
            entry = json.loads(target.read_text())
            key = CacheKey.of(nb, fw, usage.key(nb), config.html.figure_format)
            assert (entry["key_format"], entry["code"]) == (KEY_FORMAT, key.digest), path
            if "gpu" not in entry["run"]:  # this host's run (freeze = all)
                continue
            assert entry["run"]["gpu"] == "NVIDIA H200, driver 580.159.04, CUDA 13.0"
            assert "Python 3.12's ast.dump), from the sources at 24ad169" in entry["run"]["rekeyed"]
            checked += 1
    assert checked == 4 and SHIPPED_ENTRY.is_file()


def test_a_run_cached_under_the_old_key_is_rekeyed_not_run_again(tmp_path: Path) -> None:
    nb = notebook("import numpy as np", "def f():\n    return np.ones(3)", "f()")
    cache = ExecutionCache(tmp_path / "cache")

    def legacy(dialect: str) -> CacheKey:
        return CacheKey.of(nb, "pytorch", "lib", "svg", dialect)

    ran = notebook("import numpy as np", "def f():\n    return np.ones(3)", "f()")
    ran.cells[2].outputs = [{"output_type": "stream", "name": "stdout", "text": "[1. 1. 1.]\n"}]
    update_notebook_meta(ran, run=RunInfo(seconds=1.5), key="old")
    cache.put(legacy(own_dialect()).on("env").digest, ran)  # as this host's last polybook did
    code = CacheKey.of(nb, "pytorch", "lib", "svg")
    place = ("chap/a.md", "pytorch")
    found = find_run(cache, None, place, nb, code, "env", "cpu", 0, Reporter(), legacy)
    assert found.run is not None and found.run.cells[2].outputs == ran.cells[2].outputs
    stored = cache.get(found.key, 0)  # stored again under today's key
    assert stored is not None and notebook_meta(stored).key_format == KEY_FORMAT


@pytest.mark.slow  # each Python reads the repository's 1,000 trees
def test_keys_agree_on_every_cpython_this_machine_has(capsys: pytest.CaptureFixture[str]) -> None:
    pythons = installed()  # one of each version: python3.N on the PATH, pyenv's, uv's
    # Never skipped: `make test` stops before the suite (`make pythons`) on a machine with
    # fewer than two, and this kind of machine has pyenv's 3.10 to 3.13.
    assert len(pythons) >= 2, f"one CPython (3.10 or later) to compare keys with: {pythons}"
    # Every Python file and code cell of this repository (its sources, tests, shipped pages):
    # its format-2 key, and its format-1 key as every other Python emulates this one's.
    assert compare_keys(pythons) == 0, capsys.readouterr().out
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(pythons) and len({line.split(":")[0] for line in lines}) == len(lines)
    for line in lines:
        trees = int(line.split(": ")[1].split()[0])
        assert trees > 500, line
        assert line.endswith(" trees, 0 differ from the first, 0 dumps emulated otherwise"), line
