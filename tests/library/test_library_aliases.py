"""d2lbook's alias keys: the lines they add to a library, where, and from which notebook on."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.config.model import LibraryAliases
from polybook.diagnostics import Reporter
from polybook.library.aliases import alias_lines, place_aliases
from polybook.library.compose import library_text
from polybook.library.extract import check_parity
from polybook.library.model import SavedBlock

CONFIG = """\
[project]
name = aliases

[build]
tabs = pytorch

[library-pytorch]
lib_name = torch
simple_alias = ones, concat -> cat,
               exp(, tensor, 2x
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
        ("exp = torch.exp", 10),  # d2lbook's way of naming a function it calls
        ("tensor = torch.tensor", 10),
        ("size = lambda x, *args, **kwargs: x.numel(*args, **kwargs)", 11),
        ("numpy = lambda x, *args, **kwargs: x.detach().numpy(*args, **kwargs)", 11),
        ("nn_Module = nn.Module", 13),
    ]
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:10: [library-pytorch] simple_alias: '2x' does not make a line of Python:"
        " left out [polybook.config.alias]",
        "config.ini:11: [library-pytorch] fluent_alias: 'bad ->' does not make a line of"
        " Python: left out [polybook.config.alias]",
        "config.ini:14: [library-pytorch] alias: 'def broken(' is not a line of Python:"
        " left out [polybook.config.alias]",
    ]


def test_simple_aliases_need_the_module_they_point_into() -> None:
    reporter = Reporter()
    aliases = LibraryAliases(simple_alias="ones", fluent_alias="reshape", lines={"simple_alias": 4})
    assert alias_lines(aliases, "library-jax", reporter) == [
        ("reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)", 0)
    ]
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:4: [library-jax] simple_alias: needs lib_name, the module its names point"
        " into: left out [polybook.config.alias]"
    ]


def test_the_aliases_follow_the_code_that_imports_what_they_read() -> None:
    blocks = [
        SavedBlock("a.md", (3,), "def first():\n    return 1", 0),
        SavedBlock("b.md", (5,), "import torch", 1),
        SavedBlock("c.md", (7,), "from torch import nn", 2),
        SavedBlock("c.md", (9,), "class Module(d2l.nn_Module):\n    pass", 2),
        SavedBlock("d.md", (9,), "def last():\n    return 2", 3),
    ]
    simple = LibraryAliases(
        "torch", "ones", "", "nn_Module = nn.Module", lines={"simple_alias": 20, "alias": 22}
    )
    placed = place_aliases(simple, "library-pytorch", blocks, Reporter())
    ones, module = placed[2], placed[4]  # after torch's import, after nn's: before the class
    assert placed == [*blocks[:2], ones, blocks[2], module, *blocks[3:]]
    assert (ones.path, ones.lines, ones.notebook, ones.code) == (
        "config.ini",
        (20,),
        1,
        "ones = torch.ones",
    )
    assert (module.lines, module.notebook, module.code) == ((22,), 2, "nn_Module = nn.Module")
    text = library_text(placed, "PyTorch")
    assert "\n# config.ini:22\nnn_Module = nn.Module\n\n# c.md:9\nclass Module(" in text
    lambdas = place_aliases(
        LibraryAliases(fluent_alias="reshape"), "library-pytorch", blocks, Reporter()
    )
    assert (lambdas[0].path, lambdas[0].notebook) == ("config.ini", -1)  # reads nothing
    unbound = place_aliases(LibraryAliases("np", "ones"), "library-pytorch", blocks, Reporter())
    assert (unbound[-1].path, unbound[-1].notebook) == ("config.ini", 4)  # np: never imported
    assert place_aliases(LibraryAliases(), "library-pytorch", blocks, Reporter()) == blocks


def test_a_name_one_framework_aliases_and_another_lacks_is_warned_at_its_entry() -> None:
    torch = LibraryAliases("torch", "ones,\n zeros", lines={"simple_alias": 5})
    jax = LibraryAliases("jnp", "ones", lines={"simple_alias": 9})
    reporter = Reporter()
    libraries = {
        "pytorch": place_aliases(torch, "library-pytorch", [], reporter),
        "jax": place_aliases(jax, "library-jax", [], reporter),
    }
    check_parity(libraries, (), reporter)
    assert [str(d) for d in reporter.diagnostics] == [
        "config.ini:6: zeros is not in the library of jax (declare it in [library]"
        " framework_specific) [polybook.library.parity]"
    ]
