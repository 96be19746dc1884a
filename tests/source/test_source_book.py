"""Loading a book: pages read as bytes, toc entries located, every problem reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.source.book import BookInvalid, ParsedBook
from polybook.source.model import CodeCell, Prose, TabProse, Toc

from ..books import load_parsed, write_book

FENCE = "`" * 3


def load(root: Path) -> tuple[ParsedBook | None, Reporter]:
    reporter = Reporter()
    try:
        return load_parsed(load_config(root), reporter), reporter
    except BookInvalid:
        return None, reporter


def shown(reporter: Reporter) -> list[str]:
    return [str(d) for d in reporter.diagnostics]


INDEX = f"""# Index

{FENCE}toc
:maxdepth: 2
:numbered:

chap/one

chap/missing
{FENCE}
"""


def test_missing_toc_entry_is_warned_of_at_its_line_and_left_out(tmp_path: Path) -> None:
    root = write_book(
        tmp_path,
        {
            "index.md": INDEX,
            "chap/one.md": f"# One\n\n{FENCE}toc\nthree\n{FENCE}\n",
            "chap/two.md": "# Two\n\n:end_tab:\n",
        },
    )
    book, reporter = load(root)
    assert book is not None and not reporter.errors
    assert shown(reporter) == [
        "chap/two.md:3: :end_tab: without :begin_tab: [polybook.parse.tab]",
        "index.md:9: toc entry 'chap/missing.md' is not a page of the book: left out"
        " [polybook.toc]",
        "chap/one.md:4: toc entry 'chap/three.md' is not a page of the book: left out"
        " [polybook.toc]",
        "chap/two.md: page is in no toc [polybook.toc]",
    ]
    tocs = [b for doc in book.documents for b in doc.blocks if isinstance(b, Toc)]
    assert [toc.entries for toc in tocs] == [("chap/one",), ()]


def test_bad_bytes_are_located_by_line_and_named(tmp_path: Path) -> None:
    root = write_book(
        tmp_path,
        {
            "index.md": f"# Index\n\n{FENCE}toc\nlatin\n{FENCE}\n",
            "latin.md": "# Ünïcode\r\n\r\nçà".encode() + b"\xefve on line 3\r\n",
        },
    )
    book, reporter = load(root)
    assert book is None
    assert shown(reporter) == [
        "latin.md:3: not UTF-8: byte 0xef at column 3 (invalid continuation byte)"
        " [polybook.source.encoding]"
    ]


def test_bom_crlf_and_empty_pages_load(tmp_path: Path) -> None:
    crlf = f"# CRLF\r\n\r\n{FENCE}{{.python .input}}\r\nx = 1\r\n{FENCE}\r\n"
    root = write_book(
        tmp_path,
        {
            "index.md": b"\xef\xbb\xbf" + f"# Index\n\n{FENCE}toc\ncrlf\nempty\n{FENCE}\n".encode(),
            "crlf.md": crlf,
            "empty.md": " \n\n",
        },
    )
    book, reporter = load(root)
    assert book is not None
    assert [d.path for d in book.documents] == ["index.md", "crlf.md", "empty.md"]
    assert shown(reporter) == ["empty.md: page is empty [polybook.source.empty]"]
    index, page, empty = book.documents
    assert index.blocks[0] == Prose("# Index", 1)
    assert page.blocks == (Prose("# CRLF", 1), CodeCell(("pytorch",), "x = 1", 4))
    assert empty.blocks == ()


@pytest.mark.parametrize("entry", ["chap/one", "chap/one.md", "./chap/../chap/one"])
def test_toc_entries_are_paths_relative_to_their_page(tmp_path: Path, entry: str) -> None:
    root = write_book(
        tmp_path,
        {"index.md": f"{FENCE}toc\n{entry}\n{FENCE}\n", "chap/one.md": "# One\n"},
    )
    book, reporter = load(root)
    assert book is not None, shown(reporter)
    assert [d.path for d in book.documents] == ["index.md", "chap/one.md"]
    assert reporter.diagnostics == []


SUBSET_INDEX = f"""# Index

{FENCE}toc
:maxdepth: 2

chapter_a/index
chapter_b/index
chapter_c/index
{FENCE}
"""


def test_a_build_of_some_chapters_leaves_the_others_out_with_one_warning(tmp_path: Path) -> None:
    root = write_book(
        tmp_path,
        {
            "index.md": SUBSET_INDEX,
            "chapter_a/index.md": f"# A\n\n{FENCE}toc\nx\n{FENCE}\n",
            "chapter_a/x.md": "# X\n",
            "chapter_b/index.md": "# B\n",
            "chapter_c/index.md": "# C\n",
        },
    )
    with (root / "config.ini").open("a") as config:
        config.write("notebooks = index.md chapter_a/*.md\n")
    book, reporter = load(root)
    assert book is not None
    assert [d.path for d in book.documents] == ["index.md", "chapter_a/index.md", "chapter_a/x.md"]
    assert shown(reporter) == [
        "index.md:7: 2 toc entries name pages outside this build ([build] notebooks,"
        " exclusions), left out: the first is 'chapter_b/index.md' [polybook.toc]"
    ]
    # The site and the notebooks list only the pages built.
    toc = book.documents[0].blocks[1]
    assert isinstance(toc, Toc)
    assert (toc.entries, toc.entry_lines) == (("chapter_a/index",), (6,))


def test_a_tab_left_open_is_closed_by_the_next_one_with_a_warning(tmp_path: Path) -> None:
    page = ":begin_tab:`pytorch`\nOne.\n\n:begin_tab:`pytorch`\nTwo.\n:end_tab:\n"
    root = write_book(tmp_path, {"index.md": page})
    book, reporter = load(root)
    assert book is not None
    assert book.documents[0].blocks == (
        TabProse(("pytorch",), "One.", 2),
        TabProse(("pytorch",), "Two.", 5),
    )
    assert shown(reporter) == [
        "index.md:1: :begin_tab: opened here has no :end_tab: before line 4 [polybook.parse.tab]"
    ]


def test_setext_underlines_neither_hide_tab_marks_nor_cells(tmp_path: Path) -> None:
    page = (
        "Title\n=====\n\n:begin_tab:`pytorch`\n---\nOnly here.\n:end_tab:\n\n"
        f"Text\n---\n{FENCE}{{.python .input}}\nx = 1\n{FENCE}\n"
    )
    root = write_book(tmp_path, {"index.md": page})
    book, reporter = load(root)
    assert book is not None, shown(reporter)
    assert book.documents[0].blocks == (
        Prose("Title\n=====", 1),
        TabProse(("pytorch",), "---\nOnly here.", 5),
        Prose("Text\n---", 9),
        CodeCell(("pytorch",), "x = 1", 12),
    )
    assert shown(reporter) == []
