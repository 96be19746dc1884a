"""The library stage on a whole book: atomic writes and keeping the last good file."""

from __future__ import annotations

from pathlib import Path

from polybook.build import build_library
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.source.book import load_book
from polybook.source.split import split_book


def _lib(root: Path) -> tuple[Reporter, dict[str, int]]:
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config, reporter)
    libraries = build_library(config, split_book(book, config.tabs, reporter), reporter)
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
