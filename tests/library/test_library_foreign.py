"""A build of part of a book whose committed library d2lbook wrote (no ``# page:line``
comments) reads it into the pages' blocks by the "Defined in :numref:" labels of its
docstrings: a class of the build comes fresh, and the methods that pages outside the build
attach to it (d2lbook wrote them into its body) are attached again, at their pages' place."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from polybook.library.model import SavedBlock

from ..books import build, chapter_book, code

DESIGN = ":label:`sec_design`\n\n" + code(
    "def add_to_class(Class):  #@save",
    "    def wrapper(obj):",
    "        setattr(Class, obj.__name__, obj)",
    "    return wrapper",
    "",
    "class HyperParameters:  #@save",
    '    """The base class of hyperparameters."""',
    "    def save_hyperparameters(self, ignore=[]):",
    "        raise NotImplemented",
)
USE = ":label:`sec_use`\n\n" + code(
    "from d2l import torch as d2l",
    "",
    "@d2l.add_to_class(d2l.HyperParameters)  #@save",
    "def describe(self):",
    "    return 'use'",
)
UTILS = (
    ":label:`sec_utils`\n\n"
    + code(
        "from d2l import torch as d2l",
        "",
        "@d2l.add_to_class(d2l.HyperParameters)  #@save",
        "def save_hyperparameters(self, ignore=[]):",
        '    """Save function arguments into class attributes."""',
        "    self.saved = 'real'",
        "",
        "@d2l.add_to_class(d2l.HyperParameters)  #@save",
        "def describe(self):",
        "    return 'utils'",
        "",
        "#@save",
        "d2l.DATA_HUB['utils'] = 'hub'",
        "",
        "def helper():  #@save",
        "    return 'helper'",
    )
    + ":label:`sec_utils-more`\n"
)
PAGES = {"design": DESIGN, "use": USE, "utils": UTILS}
MODEL = code(
    "from d2l import torch as d2l",
    "",
    "class Model(d2l.HyperParameters):",
    "    def __init__(self, lr):",
    "        self.save_hyperparameters()",
    "",
    "model = Model(0.1)",
    "print(model.saved, model.describe())",
)
# The library as d2lbook 1.0.3 writes it for these pages (and one of a page since deleted).
COMMITTED = '''DATA_HUB = dict()

#################   WARNING   ################
# The below part is generated automatically through:
#    d2lbook build lib
# Don't edit it directly

import sys

d2l = sys.modules[__name__]

def gone():
    """Defined in :numref:`sec_gone`"""
    return 'gone'

def add_to_class(Class):
    """Defined in :numref:`sec_design`"""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper

class HyperParameters:
    """The base class of hyperparameters."""
    def save_hyperparameters(self, ignore=[]):
        """Defined in :numref:`sec_design`"""
        raise NotImplemented

    def describe(self):
        """Defined in :numref:`sec_use`"""
        return 'use'

    def save_hyperparameters(self, ignore=[]):
        """Save function arguments into class attributes.

        Defined in :numref:`sec_utils`"""
        self.saved = 'real'

    def describe(self):
        """Defined in :numref:`sec_utils`"""
        return 'utils'

d2l.DATA_HUB['utils'] = 'hub'

def helper():
    """Defined in :numref:`sec_utils`"""
    return 'helper'
'''
CALLS = (
    "from d2l import torch as d2l\n"
    "h = d2l.HyperParameters()\n"
    "h.save_hyperparameters()\n"
    "print(h.saved, h.describe(), d2l.DATA_HUB['utils'], d2l.helper(), d2l.gone())\n"
)


def committed_book(root: Path, notebooks: str, pages: dict[str, str] = PAGES) -> Path:
    """The book of ``pages``, its committed ``d2l/torch.py`` d2lbook's."""
    chapter_book(root, pages, f"notebooks = {notebooks}\n")
    (root / "d2l").mkdir()
    (root / "d2l/torch.py").write_text(COMMITTED)
    return root


def run_library(root: Path, calls: str = CALLS) -> str:
    """What :data:`CALLS` prints, the written library imported by plain Python (the book's
    own: ``-E`` keeps a ``d2l`` package on PYTHONPATH from shadowing it)."""
    done = subprocess.run(
        [sys.executable, "-E", "-c", calls], cwd=root, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() + done.stderr


def test_a_partial_build_attaches_the_methods_of_pages_outside_it_to_its_class(
    tmp_path: Path,
) -> None:
    root = committed_book(tmp_path / "book", "index.md chap/design.md chap/use.md")
    assert build(root, "lib") == 0
    text = (root / "d2l/torch.py").read_text()
    assert text.count("class HyperParameters:") == 1
    assert text.index("class HyperParameters:") < text.index("    # chap/utils.md:")
    assert text.count("d2l.DATA_HUB['utils'] = 'hub'") == 1
    assert text.count("def describe(self):") == 1  # utils.md's replaces use.md's
    assert run_library(root) == "real utils hub helper gone"


def test_a_partial_build_of_the_last_page_keeps_the_earlier_pages_methods(
    tmp_path: Path,
) -> None:
    root = committed_book(tmp_path / "book", "index.md chap/utils.md")
    assert build(root, "lib") == 0
    text = (root / "d2l/torch.py").read_text()
    assert text.count("class HyperParameters:") == 1 and text.count("def helper():") == 1
    assert text.count("d2l.DATA_HUB['utils'] = 'hub'") == 1
    assert run_library(root) == "real utils hub helper gone"


def test_a_partial_build_of_a_middle_page_keeps_the_class_and_the_methods_around_it(
    tmp_path: Path,
) -> None:
    root = committed_book(tmp_path / "book", "index.md chap/use.md")
    assert build(root, "lib") == 0
    text = (root / "d2l/torch.py").read_text()
    assert text.count("class HyperParameters:") == 1 and "The base class" in text
    assert text.count("def describe(self):") == 1  # use.md's, replaced by utils.md's
    assert run_library(root) == "real utils hub helper gone"


@pytest.mark.slow
def test_a_page_of_a_partial_build_runs_the_method_of_a_page_outside_it(tmp_path: Path) -> None:
    pages = {"design": DESIGN, "use": USE, "model": MODEL, "utils": UTILS}
    notebooks = "index.md chap/design.md chap/use.md chap/model.md"
    root = committed_book(tmp_path / "book", notebooks, pages)
    assert build(root, "eval") == 0
    nb = json.loads((root / "_build/eval/pytorch/chap/model.ipynb").read_text())
    printed = [o["text"].strip() for c in nb["cells"] for o in c.get("outputs", []) if "text" in o]
    assert printed == ["real utils"]


LATER = ":label:`sec_later`\n\n" + code(
    "from d2l import torch as d2l",
    "",
    "@d2l.add_to_class(d2l.HyperParameters)  #@save",
    "def describe(self):",
    "    return 'later'",
)
# use.md saves a function after its method, later.md only a method.
ORDERED = {
    "design": DESIGN,
    "use": USE + code("def used():  #@save", "    return 0"),
    "later": LATER,
}
UTILS_METHOD = '    def save_hyperparameters(self, ignore=[]):\n        """Save'
ORDERED_LIBRARY = COMMITTED.partition(UTILS_METHOD)[0] + (  # up to use.md's method
    "    def describe(self):\n"
    '        """Defined in :numref:`sec_later`"""\n'
    "        return 'later'\n"
    "\n"
    "def used():\n"
    '    """Defined in :numref:`sec_use`"""\n'
    "    return 0\n"
)


def test_the_methods_of_pages_outside_the_build_keep_their_book_order(tmp_path: Path) -> None:
    root = chapter_book(tmp_path / "book", ORDERED, "notebooks = index.md chap/design.md\n")
    (root / "d2l").mkdir()
    (root / "d2l/torch.py").write_text(ORDERED_LIBRARY)
    assert build(root, "lib") == 0
    calls = "from d2l import torch as d2l\nprint(d2l.HyperParameters().describe())\n"
    assert run_library(root, calls) == "later"


# What read_foreign makes of COMMITTED with PAGES: page, first page line, moved, code lines.
READ_BACK = [
    (
        "d2l/torch.py",
        1,
        False,
        (
            "import sys",
            "",
            "d2l = sys.modules[__name__]",
            "",
            "def gone():",
            '    """Defined in :numref:`sec_gone`"""',
            "    return 'gone'",
        ),
    ),
    (
        "chap/design.md",
        6,
        False,
        (
            "def add_to_class(Class):",
            '    """Defined in :numref:`sec_design`"""',
            "    def wrapper(obj):",
            "        setattr(Class, obj.__name__, obj)",
            "    return wrapper",
            "",
            "class HyperParameters:",
            '    """The base class of hyperparameters."""',
            "    def save_hyperparameters(self, ignore=[]):",
            '        """Defined in :numref:`sec_design`"""',
            "        raise NotImplemented",
        ),
    ),
    (
        "chap/use.md",
        9,
        True,
        (
            "@d2l.add_to_class(HyperParameters)",
            "def describe(self):",
            '    """Defined in :numref:`sec_use`"""',
            "    return 'use'",
        ),
    ),
    (
        "chap/utils.md",
        9,
        True,
        (
            "@d2l.add_to_class(HyperParameters)",
            "def save_hyperparameters(self, ignore=[]):",
            '    """Save function arguments into class attributes.',
            "",
            '    Defined in :numref:`sec_utils`"""',
            "    self.saved = 'real'",
        ),
    ),
    (
        "chap/utils.md",
        14,
        True,
        (
            "@d2l.add_to_class(HyperParameters)",
            "def describe(self):",
            '    """Defined in :numref:`sec_utils`"""',
            "    return 'utils'",
        ),
    ),
    (
        "chap/utils.md",
        18,
        False,
        (
            "d2l.DATA_HUB['utils'] = 'hub'",
            "",
            "def helper():",
            '    """Defined in :numref:`sec_utils`"""',
            "    return 'helper'",
        ),
    ),
]


def test_a_d2lbook_library_is_read_back_into_the_blocks_of_its_pages(tmp_path: Path) -> None:
    from polybook.library.foreign import read_foreign, read_pages
    from polybook.library.head import split_library

    root = chapter_book(tmp_path / "book", PAGES)
    (root / "_build").mkdir()
    (root / "_build" / "copy.md").write_text(DESIGN)  # the build folder is not the book's
    body = split_library(COMMITTED).body
    found = read_foreign(body, "d2l/torch.py", read_pages(root))
    blocks = [(b.path, b.lines[0], moved, tuple(b.code.split("\n"))) for b, moved in found]
    assert blocks == READ_BACK
    assert [len(b.lines) for b, _ in found] == [len(code) for *_, code in READ_BACK]
    aliased = body + "# Alias defined in config.ini\n\nsize = lambda a: a.numel()\n"
    assert read_foreign(aliased, "d2l/torch.py", read_pages(root)) == found  # the build's
    assert read_foreign(" \n", "d2l/torch.py", read_pages(root)) == []
    assert read_foreign("def (:\n\n", "d2l/torch.py", read_pages(root)) == [
        (SavedBlock("d2l/torch.py", (1,), "def (:", 0), False)
    ]


def test_the_page_that_saves_a_statement_is_found_by_its_mark() -> None:
    from polybook.library.foreign import Pages

    pages = Pages(
        {
            "a.md": ["x = 1  #@save"],
            "b.md": ["#@save", "", "@dec", "def f():", "y = 2"],
            "c.md": ["z = 0  # @save", "w = 3"],
            "d.md": ["z = 0  #@save"],
        },
        {},
    )
    assert pages.saves("a.md", "x = 1") == 1
    assert pages.saves("b.md", "def f():") == 4  # the mark above, past blank and @ lines
    assert (pages.saves("b.md", "y = 2"), pages.saves("c.md", "w = 3")) == (0, 0)
    assert pages.saves("gone.md", "x = 1") == 0
    assert pages.saver("def f():", "a.md", "b.md") == "b.md"
    assert pages.saver("x = 1") == "a.md"  # the only page that saves it
    assert pages.saver("z = 0") == ""  # several do
    assert pages.saver("z = 0", "", "d.md") == "d.md"
    assert pages.saver("w = 3") == ""


def test_a_class_is_the_page_its_docstring_or_first_methods_names() -> None:
    from polybook.library.foreign import _label

    def label(source: str) -> str:
        return _label(ast.parse(source).body[0])

    defined = '"""Defined in :numref:`sec_a`"""'
    assert label(f"def f():\n    {defined}\n") == "sec_a"
    assert label(f"class C:\n    {defined}\n") == "sec_a"
    assert label(f"class C:\n    x = 1\n    def m(self):\n        {defined}\n") == "sec_a"
    assert label("class C:\n    x = 1\n") == ""
    assert label("def f():\n    return 1\n") == ""
    assert label(f"x = 1\n{defined}\n") == ""


def test_the_book_pages_are_read_with_their_labels_lines(tmp_path: Path) -> None:
    from polybook.library.foreign import read_pages

    for rel, text in {
        "a.md": "# A\n\n:label:`sec_a`\n\n```python\nx = 1  #@save\n```\n",
        "b.md": "# B\n:label:`sec_b`\n",
        ".hidden/c.md": ":label:`sec_c`\n#@save\n",
        "d/.e/f.md": ":label:`sec_f`\n#@save\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "0.md").write_bytes(b"\xff :label:`sec_0` #@save\n")  # not UTF-8: passed over
    found = read_pages(tmp_path)
    assert found.labels == {"sec_a": ("a.md", 3), "sec_b": ("b.md", 2)}
    assert list(found.lines) == ["a.md"]  # the pages that save code
