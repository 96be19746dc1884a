"""d2lbook's alias keys: the lines they add to a library, where, and from which notebook on."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.config.model import LibraryAliases
from polybook.diagnostics import Reporter
from polybook.library import library_text
from polybook.library_aliases import alias_block, alias_lines
from polybook.saved import SavedBlock

CONFIG = """\
[project]
name = aliases

[build]
tabs = pytorch

[library-pytorch]
lib_name = torch
simple_alias = ones, concat -> cat,
               exp(, tensor
fluent_alias = size -> numel, numpy -> detach().numpy, bad ->
alias =
       nn_Module = nn.Module
       def broken(
"""


def test_each_alias_key_makes_its_lines_and_a_bad_entry_is_left_out_at_its_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.ini").write_text(CONFIG)
    aliases = load_config(tmp_path).library_for("pytorch").aliases
    reporter = Reporter()
    lines = alias_lines(aliases, "library-pytorch", reporter)
    assert lines == [
        ("ones = torch.ones", 9),
        ("concat = torch.cat", 9),
        ("tensor = torch.tensor", 10),
        ("size = lambda x, *args, **kwargs: x.numel(*args, **kwargs)", 11),
        ("numpy = lambda x, *args, **kwargs: x.detach().numpy(*args, **kwargs)", 11),
        ("nn_Module = nn.Module", 13),
    ]
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:10: [library-pytorch] simple_alias: 'exp(' does not make a line of Python:"
        " left out [polybook.config.alias]",
        "config.ini:11: [library-pytorch] fluent_alias: 'bad ->' does not make a line of"
        " Python: left out [polybook.config.alias]",
        "config.ini:14: [library-pytorch] alias: 'def broken(' is not a line of Python:"
        " left out [polybook.config.alias]",
    ]


def test_simple_aliases_need_the_module_they_point_into() -> None:
    reporter = Reporter()
    aliases = LibraryAliases(simple="ones", fluent="reshape", lines={"simple_alias": 4})
    assert alias_lines(aliases, "library-jax", reporter) == [
        ("reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)", 0)
    ]
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:4: [library-jax] simple_alias: needs lib_name, the module its names point"
        " into: left out [polybook.config.alias]"
    ]


def test_the_aliases_come_last_and_from_the_notebook_that_imports_what_they_read() -> None:
    blocks = [
        SavedBlock("a.md", (3,), "def first():\n    return 1", 0),
        SavedBlock("b.md", (5,), "import torch", 1),
        SavedBlock("c.md", (7,), "from torch import nn", 2),
        SavedBlock("d.md", (9,), "def last():\n    return 2", 3),
    ]
    simple = LibraryAliases(
        "torch", "ones", "", "nn_Module = nn.Module", lines={"simple_alias": 20}
    )
    block = alias_block(simple, "library-pytorch", blocks, Reporter())
    assert block is not None and block.notebook == 2  # torch from b.md, nn from c.md
    assert block.code == "ones = torch.ones\nnn_Module = nn.Module"
    text = library_text([*blocks, block], "PyTorch")
    assert text.endswith("\n# config.ini:20\nones = torch.ones\nnn_Module = nn.Module\n")
    lambdas = LibraryAliases(fluent="reshape")  # reads nothing from the module
    assert alias_block(lambdas, "library-pytorch", blocks, Reporter()).notebook == -1  # type: ignore[union-attr]
    unbound = LibraryAliases("np", "ones")  # np is never imported: from after the last page
    assert alias_block(unbound, "library-pytorch", blocks, Reporter()).notebook == 4  # type: ignore[union-attr]
    assert alias_block(LibraryAliases(), "library-pytorch", blocks, Reporter()) is None
