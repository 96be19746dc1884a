"""The library stage on a whole book: atomic writes and keeping the last good file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.library.extract import extract_libraries
from polybook.library.stage import write_libraries
from polybook.source.book import load_book
from polybook.source.split import split_book


def _lib(root: Path) -> tuple[Reporter, dict[str, int]]:
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    libraries = write_libraries(
        config.book,
        config.library,
        extract_libraries(split_book(book, config.build.tabs, reporter), reporter),
        reporter,
    )
    return reporter, {fw: len(blocks) for fw, blocks in libraries.items()}


def test_writes_one_file_per_framework_with_source_comments(book_copy: Path) -> None:
    reporter, counts = _lib(book_copy)
    assert not reporter.errors
    assert counts == {"pytorch": 2, "mxnet": 2, "jax": 3, "tensorflow": 2}
    text = (book_copy / "d2l" / "jax.py").read_text()
    assert "# chap/tensors.md:47\ndef double(x):" in text
    assert "d2l = sys.modules[__name__]" in text
    assert not list((book_copy / "d2l").glob(".*.pbtmp"))


def test_a_broken_block_keeps_the_last_good_library(book_copy: Path) -> None:
    _lib(book_copy)
    good = (book_copy / "d2l" / "torch.py").read_bytes()
    page = book_copy / "chap" / "tensors.md"
    page.write_text(
        page.read_text().replace(
            "    return x * 2\n```",
            "    return x * 2\n\n@d2l.add_to_class(d2l.Missing)  #@save\n"
            "def f(self):\n    pass\n```",
        )
    )
    reporter, counts = _lib(book_copy)
    assert counts == {}
    assert (book_copy / "d2l" / "torch.py").read_bytes() == good
    messages = [str(e) for e in reporter.errors]
    assert (
        "chap/tensors.md:51 [pytorch]: add_to_class(Missing): Missing is not saved" in (messages[0])
    )
    assert len(messages) == 4  # one per framework


def test_unchanged_library_is_not_rewritten(book_copy: Path) -> None:
    _lib(book_copy)
    lib = book_copy / "d2l" / "tensorflow.py"
    before = lib.stat().st_mtime_ns
    _lib(book_copy)
    assert lib.stat().st_mtime_ns == before


FENCE = "`" * 3


def _small_book(root: Path, pages: dict[str, str]) -> Path:
    """A two-framework book whose root toc lists ``pages`` in order."""
    root.mkdir(parents=True)
    (root / "config.ini").write_text("[build]\ntabs = pytorch, jax\n")
    toc = "\n".join(p.removesuffix(".md") for p in pages)
    (root / "index.md").write_text(f"# Book\n\n{FENCE}toc\n{toc}\n{FENCE}\n")
    for name, text in pages.items():
        (root / name).write_text(text)
    return root


def _cell(code: str, tab: str = "all") -> str:
    return f"{FENCE}{{.python .input}}\n%%tab {tab}\n{code.strip()}\n{FENCE}\n\n"


def _import(path: Path) -> ModuleType:
    """The generated library, imported as the reader's Python would (no framework needed)."""
    name = f"pb_lib_{path.parent.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the library names itself through sys.modules
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


TRAINER = """
def add_to_class(Class):  #@save
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper

class Trainer:  #@save
    def __init__(self):
        self.epochs = 3

@d2l.add_to_class(Trainer)  #@save
def fit(self):
    return self.epochs
"""


def test_methods_added_to_a_class_live_only_on_their_class(tmp_path: Path) -> None:
    returning = TRAINER.replace("    return wrapper", "    return lambda f: wrapper(f) or f")
    for name, source in {"none": TRAINER, "method": returning}.items():
        root = _small_book(tmp_path / name, {"a.md": "# A\n\n" + _cell(source)})
        reporter, counts = _lib(root)
        assert not reporter.diagnostics and counts == {"pytorch": 3, "jax": 3}
        for lib_file in ("torch.py", "jax.py"):
            lib = _import(root / "d2l" / lib_file)
            assert lib.Trainer().fit() == 3
            assert not hasattr(lib, "fit"), name
            assert callable(lib.add_to_class)


def test_a_later_definition_replaces_an_earlier_one_with_a_warning(tmp_path: Path) -> None:
    first = _cell("def load(n):  #@save\n    return n") + _cell(TRAINER)
    later = _cell("def load(n):  #@save\n    return 2 * n", "pytorch") + _cell(
        "@d2l.add_to_class(d2l.Trainer)  #@save\ndef fit(self):\n    return -1", "pytorch, jax"
    )
    root = _small_book(tmp_path / "book", {"a.md": "# A\n\n" + first, "b.md": "# B\n\n" + later})
    reporter, _ = _lib(root)
    assert [str(d) for d in reporter.diagnostics] == [
        "b.md:5 [pytorch]: load is defined again: this replaces its definition at a.md:5"
        " [polybook.library.redefined]",
        "b.md:11: Trainer.fit is defined again: this replaces its definition at a.md:20"
        " [polybook.library.redefined]",
    ]
    torch, jax = _import(root / "d2l" / "torch.py"), _import(root / "d2l" / "jax.py")
    assert (torch.load(2), jax.load(2)) == (4, 2)
    assert torch.Trainer().fit() == jax.Trainer().fit() == -1


def test_a_save_line_saves_the_statements_below_it_and_no_ipython_line(tmp_path: Path) -> None:
    code = """
%matplotlib inline
#@save
DATA_HUB = dict()
DATA_HUB['tiny'] = ('http://example.org/tiny.csv', 'abc')
!echo not saved

#@save
def download(name):
    %time url = DATA_HUB[name][0]
    return DATA_HUB[name][0]

download('tiny')
"""
    root = _small_book(tmp_path / "book", {"a.md": "# A\n\n" + _cell(code)})
    reporter, counts = _lib(root)
    assert not reporter.diagnostics and counts == {"pytorch": 2, "jax": 2}
    text = (root / "d2l" / "torch.py").read_text()
    assert not [line for line in text.splitlines() if line.lstrip().startswith(("%", "!"))]
    assert "download('tiny')" not in text
    lib = _import(root / "d2l" / "torch.py")
    assert lib.download("tiny") == "http://example.org/tiny.csv"


ATTACHED = """
class Trainer:  #@save
    \"\"\"Fits models.\"\"\"
    def __init__(self):
        self.epochs = 3

    def fit(self):
        return 'first'

@d2l.add_to_class(Trainer)  #@save
def fit(self):
    return 'second'

@d2l.add_to_class(Trainer)  #@save
def report(self):
    return f'{self.fit()} after {self.epochs}'

@d2l.add_to_class(Trainer)  #@save
def hidden(self):
    return self.__secret

@some_decorator
@d2l.add_to_class(Trainer)  #@save
def wrapped(self):
    return 0
"""
HELPERS = """
def add_to_class(Class):  #@save
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper

def some_decorator(f):  #@save
    return f
"""


def test_attached_methods_are_written_into_their_class_body(tmp_path: Path) -> None:
    page = "# A\n\n" + _cell(HELPERS) + _cell(ATTACHED)
    root = _small_book(tmp_path / "book", {"a.md": page})
    _lib(root)
    text = (root / "d2l" / "torch.py").read_text()
    body = text[text.index("class Trainer:") :]
    # The later fit replaces the class's own, in its place; report goes at the end.
    assert body.index("def __init__") < body.index("def fit") < body.index("def report")
    assert "'first'" not in text and text.count("def fit(self):") == 1
    assert "    # a.md:" in body  # each moved method names its place
    # Where moving would change the code (a mangled __name, another outer decorator), the
    # method stays a decorated function, deleted from the module after its block.
    assert "\n@d2l.add_to_class(Trainer)\ndef hidden(self):" in text and "\ndel hidden" in text
    assert "\n@some_decorator\n@d2l.add_to_class(Trainer)\ndef wrapped" in text
    lib = _import(root / "d2l" / "torch.py")
    trainer = lib.Trainer()
    assert (trainer.fit(), trainer.report(), trainer.wrapped()) == ("second", "second after 3", 0)
    public = {n for n in vars(lib) if not n.startswith("_")}
    assert public == {"d2l", "sys", "add_to_class", "some_decorator", "Trainer"}


def test_a_framework_that_saves_nothing_gets_no_library_file(tmp_path: Path) -> None:
    """As d2lbook: no empty module is made; one the author keeps stays as it is."""
    page = "# A\n\n" + _cell("def f():  #@save\n    return 1", "pytorch") + _cell("x = 1", "jax")
    root = _small_book(tmp_path / "book", {"a.md": page})
    reporter, counts = _lib(root)
    assert not reporter.errors and counts == {"pytorch": 1, "jax": 0}
    assert (root / "d2l" / "torch.py").is_file()
    assert not (root / "d2l" / "jax.py").exists()
    (root / "d2l" / "jax.py").write_text("# the author's\n")
    _lib(root)
    assert (root / "d2l" / "jax.py").is_file()
