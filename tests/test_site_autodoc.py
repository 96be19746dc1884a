"""What autodoc is given to import the book's library in the site's and the PDF's Sphinx."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.library.model import SavedBlock
from polybook.pdf.latex import LatexJob, latex_config
from polybook.render.autodoc import autodoc_settings
from polybook.render.sphinx_log import condensed

from .books import copy_fixture as copy_book

CODE = """\
import math
import torch.nn as nn
from helpers import scale
from d2l import jax
from . import sibling
"""


def test_only_what_the_sphinx_python_cannot_import_is_mocked(tmp_path: Path) -> None:
    root = copy_book(tmp_path / "book", "d2lbook_book")
    (root / "helpers.py").write_text("scale = 2\n")  # beside the book: importable there
    config = load_config(root)
    libraries = {"pytorch": [SavedBlock("chapter_a/x.md", (1, 2, 3, 4, 5), CODE, 0)]}
    expected = {"pb_import_path": [str(root)], "autodoc_mock_imports": ["torch"]}
    assert autodoc_settings(config, libraries) == expected
    assert autodoc_settings(config, {}) == {
        "pb_import_path": [str(root)],
        "autodoc_mock_imports": [],
    }
    settings = latex_config(config, LatexJob(config, "pytorch", libraries), "")
    assert settings["autodoc_mock_imports"] == ["torch"]
    assert settings["pb_import_path"] == [str(root)]


FAILED_IMPORT = """\
autodoc: failed to import 'torch' from module 'd2l'; the following exception was raised:
Traceback (most recent call last):
  File "/site-packages/sphinx/ext/autodoc/_importer.py", line 221, in _import_module
    module = importlib.import_module(modname)
  File "/book/d2l/torch.py", line 56, in <module>
    class Module(d2l.nn_Module):
                 ^^^^^^^^^^^^^
AttributeError: module 'd2l.torch' has no attribute 'nn_Module'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
ImportError: (AttributeError("module 'd2l.torch' has no attribute 'nn_Module'"), 'Traceback')"""


def test_a_warning_with_a_traceback_is_its_first_line_the_error_and_where() -> None:
    assert condensed(FAILED_IMPORT) == (
        "autodoc: failed to import 'torch' from module 'd2l': AttributeError: module"
        " 'd2l.torch' has no attribute 'nn_Module' (at /book/d2l/torch.py:56)"
    )
    assert condensed("one line") == "one line"
    assert condensed("two\nlines") == "two\nlines"
