"""What autodoc is given to import the book's library in the site's and the PDF's Sphinx."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from sphinx.util.inspect import stringify_signature

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.library.model import SavedBlock
from polybook.pdf.latex import LatexJob, latex_config
from polybook.render.autodoc import autodoc_settings
from polybook.render.library_stubs import module_from_source
from polybook.render.sphinx.log import condensed
from polybook.site.api import api_index, api_pages, documented_modules
from polybook.source.book import load_book

from ..books import copy_fixture as copy_book

CODE = """\
import math
import torch.nn as nn
from helpers import scale
from d2l import jax
from . import sibling
"""


def test_the_library_is_read_from_source_and_nothing_it_imports_is_imported(
    tmp_path: Path,
) -> None:
    root = copy_book(tmp_path / "book", "d2lbook_book")
    (root / "helpers.py").write_text("scale = 2\n")  # importable here, yet not imported
    config = load_config(root)
    libraries = {"pytorch": [SavedBlock("chapter_a/x.md", (1, 2, 3, 4, 5), CODE, 0)]}
    files = {"d2l.torch": str(root / "d2l/torch.py"), "d2l.jax": str(root / "d2l/jax.py")}
    files["d2l"] = str(root / "d2l/__init__.py")  # the package too: nothing of it runs
    expected = {
        "pb_import_path": [str(root)],
        "pb_library_files": files,
        "autodoc_mock_imports": ["helpers", "torch"],
    }
    assert autodoc_settings(config.book, libraries) == expected
    assert autodoc_settings(config.book, {})["autodoc_mock_imports"] == []
    job = LatexJob(config.book, "pytorch", libraries)
    settings = latex_config(job, config.build, config.pdf, "")
    assert settings["autodoc_mock_imports"] == ["helpers", "torch"]
    assert settings["pb_library_files"] == files


LIBRARY = """\"\"\"A library.\"\"\"
import torch
import nothing_installed

d2l = sys.modules[__name__]
raise RuntimeError("this module is never run")

class Trainer(nothing_installed.Base):
    \"\"\"Fits models.\"\"\"
    def __init__(self, max_epochs: int, lr=0.1 * 2, *args, device=torch.device('cpu'), **kw):
        self.lr = lr

    @property
    def epochs(self):
        \"\"\"How many epochs.\"\"\"
        return 1

@d2l.add_to_class(Trainer)
def fit(self, model) -> 'Trainer':
    \"\"\"Fit ``model``.\"\"\"
del fit

def helper(x, /, y=None):
    return x

def helper(x):
    \"\"\"The later one.\"\"\"
"""


def test_a_library_module_is_made_from_its_source_without_running_it() -> None:
    module = module_from_source("d2l.lib", LIBRARY, "/book/d2l/lib.py")
    assert module.__doc__ == "A library."
    assert sorted(n for n in vars(module) if not n.startswith("_")) == ["Trainer", "helper"]
    trainer = module.Trainer
    assert (trainer.__module__, trainer.__doc__) == ("d2l.lib", "Fits models.")
    shown = stringify_signature(inspect.signature(trainer))  # as autodoc shows it
    assert shown == "(max_epochs: int, lr=0.1 * 2, *args, device=torch.device('cpu'), **kw)"
    assert stringify_signature(inspect.signature(trainer.fit)) == "(self, model) -> Trainer"
    assert (trainer.fit.__qualname__, trainer.fit.__doc__) == ("Trainer.fit", "Fit ``model``.")
    assert trainer.epochs.__doc__ == "How many epochs."
    assert module.helper.__doc__ == "The later one."  # a later definition replaces one
    with pytest.raises(NotImplementedError):
        module.helper(1)


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


def test_a_module_the_book_documents_itself_gets_no_second_api_page(tmp_path: Path) -> None:
    root = copy_book(tmp_path / "book", "d2lbook_book")
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    documented = documented_modules(book.documents)
    assert documented == {"json": "chapter_b/api", "d2l.torch": "chapter_b/api"}
    saved = "def numel(x):  #@save\n    return 1\n"
    libraries = {fw: [SavedBlock("chapter_a/x.md", (1, 2), saved, 0)] for fw in config.build.tabs}
    pages = api_pages(config.book, libraries, config.build.tabs, documented)
    assert [page.docname for page in pages] == ["api/jax"]  # d2l.torch is on the book's page
    index = api_index(config.book, libraries, config.build.tabs, documented)
    assert index["pytorch"]["doc"] == "chapter_b/api"  # code links to autodoc's entries
    assert index["pytorch"]["names"]["numel"]["id"] == "d2l.torch.numel"
    assert index["jax"]["doc"] == "api/jax"
