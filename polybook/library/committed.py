"""A build of part of a book (``[build] notebooks`` names one chapter) takes the code that
pages outside it save from the committed library, as the full build made it.

The committed ``d2l/<fw>.py`` is read back into blocks: each top-level block after the
comment naming its page and line, each method a class body holds after such a comment as
the ``add_to_class`` block that put it there. The blocks of pages outside the build (pages
that are still in the book's folder) are merged with the build's own, in the committed
file's order of pages. A library d2lbook wrote (without those comments) is read into the
same blocks by the labels its docstrings name (:mod:`polybook.library.foreign`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from polybook.config import Book
from polybook.library.extract import Merge
from polybook.library.foreign import Pages, Read, page_block, read_foreign, read_pages
from polybook.library.head import split_library
from polybook.library.model import SavedBlock
from polybook.library.syntax import statement_start
from polybook.source.book import ParsedBook

PLACE = re.compile(r"^(\s*)# (\S+):(\d+)$")


def _split_class(block: SavedBlock) -> list[Read]:
    """``block`` without the methods written into its classes, then those methods, each as
    the ``add_to_class`` block that attached it."""
    try:
        tree = ast.parse(block.code)
    except SyntaxError:
        return [(block, False)]
    lines = block.code.split("\n")
    moved: list[SavedBlock] = []
    drop: set[int] = set()  # 0-based lines of the moved methods and their comments
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            start = statement_start(item) - 1
            place = PLACE.match(lines[start - 1]) if start > 0 else None
            if place is None or not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            indent = len(place.group(1))
            end = item.end_lineno or start + 1
            method = [text[indent:] for text in lines[start:end]]
            head = f"@d2l.add_to_class({node.name})"
            moved.append(page_block(place.group(2), int(place.group(3)), [head, *method]))
            drop.update(range(start - 1, end))
    kept = [text for k, text in enumerate(lines) if k not in drop]
    return [(page_block(block.path, block.line, kept), False), *((m, True) for m in moved)]


def read_committed(text: str, lib_file: str, pages: Callable[[], Pages]) -> list[Read]:
    """The blocks of a committed library, in its order (see the module's documentation),
    each marked when it is a method read out of a class body: where it stands is not where
    its page comes in the book. ``pages``: the book's pages, read where the library is
    d2lbook's."""
    chunks: list[tuple[str, int, list[str]]] = []
    for text_line in text.split("\n"):
        place = PLACE.match(text_line)
        if place and not place.group(1):
            chunks.append((place.group(2), int(place.group(3)), []))
        elif chunks:
            chunks[-1][2].append(text_line)
    if not chunks:  # d2lbook's library: read by the labels of its docstrings
        return read_foreign(text, lib_file, pages())
    blocks: list[Read] = []
    for path, line, code in chunks:
        kept = page_block(path, line, code).code.split("\n")
        while kept and kept[-1].startswith("del "):  # the library's own deletions
            kept.pop()
        blocks.extend(_split_class(page_block(path, line, kept)))
    return blocks


class _Merge:
    """The build's blocks, placed page by page among the borrowed ones."""

    def __init__(self, inside: Sequence[str], built: Sequence[SavedBlock]) -> None:
        self.inside = list(inside)
        self.by_page: dict[str, list[SavedBlock]] = {}
        for block in built:
            self.by_page.setdefault(block.path, []).append(block)
        self.result: list[SavedBlock] = []
        self.done = 0  # build pages placed so far

    def place(self, page: int) -> None:
        """The build's pages up to the one at position ``page`` (-1: none), where not yet."""
        while self.done <= page:
            self.result += self.by_page.get(self.inside[self.done], [])
            self.done += 1

    def borrow(self, block: SavedBlock, after: int = -1) -> None:
        """``block``, after the build's pages up to position ``after``; seen by the build's
        pages after it."""
        self.place(after)
        self.result.append(block.at(self.done))


@dataclass(frozen=True)
class Borrow:
    """What a build of part of the book takes from the committed libraries: the blocks of
    ``outside`` pages, around ``inside`` ones (the build's pages, in book order).

    A method read out of a class body stands after the class, not at its page's place: it
    waits for the next block of its page, where there is one, and comes after the build's
    pages whose methods the class holds before it (pages before it in the book)."""

    root: Path
    inside: tuple[str, ...]

    @cached_property
    def pages(self) -> Pages:
        """The book folder's pages, read once for every framework's library."""
        return read_pages(self.root)

    def kept(self, path: str, lib_file: str) -> bool:
        """Whether a block of ``path`` outside the build is borrowed: the page is still
        there, or the block is the library's own."""
        return path == lib_file or (path.endswith(".md") and (self.root / path).is_file())

    def merged(self, lib_file: str, built: Sequence[SavedBlock]) -> list[SavedBlock]:
        """The build's blocks (in book order) with those borrowed for the pages outside it."""
        try:
            text = (self.root / lib_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return list(built)
        text = split_library(text).body  # the author's head is not the pages' code
        inside = {page: k for k, page in enumerate(self.inside)}
        reads = read_committed(text, lib_file, lambda: self.pages)
        last = {block.path: k for k, (block, moved) in enumerate(reads) if not moved}
        marks: dict[str, int] = {}  # a class's last build page whose method it holds so far
        waiting: list[tuple[str, str, SavedBlock, int]] = []  # methods, for their page's place
        merge = _Merge(self.inside, built)
        for k, (block, moved) in enumerate(reads):
            target = block.code.partition("\n")[0] if moved else ""  # @d2l.add_to_class(C)
            if block.path in inside and moved:  # the build attaches it again
                marks[target] = max(marks.get(target, -1), inside[block.path])
            elif block.path in inside:
                merge.place(inside[block.path])
            elif not self.kept(block.path, lib_file):
                continue
            elif moved and last.get(block.path, -1) > k:
                waiting.append((block.path, target, block, marks.get(target, -1)))
            else:  # after the methods that wait for its page, or (a method) its class's
                due = [w[1] == target if moved else w[0] == block.path for w in waiting]
                for (_, _, method, after), now in zip(waiting, due, strict=True):
                    if now:
                        merge.borrow(method, after)
                waiting = [w for w, now in zip(waiting, due, strict=True) if not now]
                merge.borrow(block, marks.get(target, -1))
        merge.place(len(self.inside) - 1)
        return merge.result


def borrowing(info: Book, book: ParsedBook) -> Merge | None:
    """What completes each framework's blocks in a build of part of ``book`` (the pages
    parsed); None for a build of the whole book, which takes nothing from the committed
    libraries."""
    if not book.outside:
        return None
    borrow = Borrow(info.root, tuple(doc.path for doc in book.documents))
    return lambda fw, blocks: borrow.merged(info.library_for(fw).lib_file, blocks)
