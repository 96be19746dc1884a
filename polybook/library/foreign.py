"""A library that d2lbook wrote (no ``# page:line`` comments) read back into page blocks.

d2lbook gives each saved def and class a docstring ending "Defined in :numref:`LABEL`" (a
class: its own docstring, or its first method's), ``LABEL`` the section of the page that
saved it, and writes each method that ``@d2l.add_to_class(C)`` attaches on a later page into
the body of ``C``, with that page's label. So each top-level statement is read as the block
of the page holding ``:label:`LABEL```, and a method of a class whose label is another
page's as that page's ``add_to_class`` block. A statement without a label (an import, an
assignment such as ``d2l.DATA_HUB['x'] = ...``, a def of a page without a section label) is
the page's that saves it (a ``#@save`` line of that code): the page of the labelled
statement before it, or after it, or else the one page that saves it; failing those the page
of the statement before it (d2lbook writes in book order). Before any labelled statement,
and where no page holds a label (the page is gone), a statement is the library's own, kept
where it is. What follows d2lbook's "# Alias defined in config.ini" is left out: the build
writes the config's aliases.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from polybook.library.model import SavedBlock
from polybook.library.syntax import statement_start

DEFINED = re.compile(r"Defined in :numref:`([^`]+)`")
LABEL = re.compile(r":label:`([^`]+)`")
SAVE_MARK = re.compile(r"#\s*@save")
ALIASES = "# Alias defined in config.ini"
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)

Read = tuple[SavedBlock, bool]  # a block, and whether it was written into a class


def page_block(path: str, line: int, lines: list[str]) -> SavedBlock:
    """The block of ``lines`` (trailing blank lines left out), from line ``line`` of ``path``."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return SavedBlock(path, tuple(range(line, line + len(lines))), "\n".join(lines), 0)


@dataclass(frozen=True)
class Pages:
    """The book folder's pages: the lines of each that saves code, the page and line of each
    label."""

    lines: dict[str, list[str]]
    labels: dict[str, tuple[str, int]]

    def saves(self, page: str, first: str) -> int:
        """The line of ``page`` that saves a statement starting with ``first`` (0: none)."""
        lines = self.lines.get(page, [])
        for k, text in enumerate(lines):
            code = SAVE_MARK.split(text)[0].rstrip()
            if code != first:
                continue
            above = k - 1  # or on a line above it in its cell (comments, decorators)
            while above >= 0 and (not lines[above].strip() or lines[above][:1] in "#@"):
                if SAVE_MARK.search(lines[above]):
                    return k + 1
                above -= 1
            if SAVE_MARK.search(text):
                return k + 1
        return 0

    def saver(self, first: str, *near: str) -> str:
        """The page that saves a statement starting with ``first``: one of ``near`` (in
        order), or else the only page that does ("" where none or several do)."""
        for page in near:
            if page and self.saves(page, first):
                return page
        found = [page for page in self.lines if self.saves(page, first)]
        return found[0] if len(found) == 1 else ""


def read_pages(root: Path) -> Pages:
    """The ``.md`` pages under ``root`` (its build folder and hidden folders aside)."""
    lines: dict[str, list[str]] = {}
    labels: dict[str, tuple[str, int]] = {}
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("_build/", ".")) or "/." in rel or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        page = text.split("\n")
        for k, line in enumerate(page):
            for label in LABEL.findall(line):
                labels.setdefault(label, (rel, k + 1))
        if SAVE_MARK.search(text):
            lines[rel] = page
    return Pages(lines, labels)


def _label(node: ast.stmt) -> str:
    """The label a def's or class's docstring names ("" for none)."""
    if not isinstance(node, (*DEFS, ast.ClassDef)):
        return ""
    found = DEFINED.search(ast.get_docstring(node, clean=False) or "")
    if found is None and isinstance(node, ast.ClassDef):
        first = next((item for item in node.body if isinstance(item, DEFS)), None)
        return _label(first) if first is not None else ""
    return found.group(1) if found else ""


@dataclass
class _Statement:
    """A top-level statement of the library: its lines, its node, and whose it is."""

    node: ast.stmt
    start: int  # 0-based first line, the comments and blank lines above it included
    end: int  # 0-based line after its last
    page: str = ""  # "" while unknown
    line: int = 0  # its page line


class ForeignLibrary:
    """A d2lbook library's text read back into page blocks (see the module's documentation)."""

    def __init__(self, text: str, lib_file: str, pages: Pages) -> None:
        lines = text.split("\n")
        cut = next((k for k, t in enumerate(lines) if t.strip() == ALIASES), len(lines))
        self.lines = lines[:cut]
        self.lib_file = lib_file
        self.pages = pages

    def first(self, node: ast.stmt) -> str:
        """The first line of ``node``'s code, as a page has it (a method unindented)."""
        return self.lines[node.lineno - 1][node.col_offset :].rstrip()

    def labelled(self, node: ast.stmt) -> tuple[str, int]:
        """The page of ``node``'s label and the page line of its code (("", 0): unknown)."""
        label = _label(node)
        if not label or label not in self.pages.labels:
            return "", 0
        page, line = self.pages.labels[label]
        return page, self.pages.saves(page, self.first(node)) or line

    def statements(self) -> list[_Statement]:
        """The top-level statements, each with its page."""
        body = ast.parse("\n".join(self.lines)).body
        found: list[_Statement] = []
        for k, node in enumerate(body):
            start = 0 if k == 0 else statement_start(node) - 1
            end = statement_start(body[k + 1]) - 1 if k + 1 < len(body) else len(self.lines)
            found.append(_Statement(node, start, end, *self.labelled(node)))
        before = ""
        for k, statement in enumerate(found):
            if statement.page:
                before = statement.page
                continue
            if _label(statement.node):  # a label no page holds: the library's own
                continue
            after = next((s.page for s in found[k + 1 :] if s.page), "")
            first = self.first(statement.node)
            page = self.pages.saver(first, before, after) if before else ""
            statement.page = page or before
            statement.line = self.pages.saves(statement.page, first) if page else 0
        return found

    def split(self, group: list[_Statement], page: str) -> list[Read]:
        """Statements of ``page`` (one after another) as its block, less the methods their
        classes hold from other pages, then each of those as its page's ``add_to_class``
        block."""
        drop: set[int] = set()
        moved: list[Read] = []
        classes = [s.node for s in group if isinstance(s.node, ast.ClassDef)]
        for node in classes:
            for item in node.body:
                where, line = self.labelled(item) if isinstance(item, DEFS) else ("", 0)
                if not where or where == page:
                    continue
                start, end = statement_start(item) - 1, item.end_lineno or item.lineno
                method = [text[item.col_offset :] for text in self.lines[start:end]]
                head = f"@d2l.add_to_class({node.name})"
                moved.append((page_block(where, line, [head, *method]), True))
                drop.update(range(start, end))
        span = range(group[0].start, group[-1].end)
        kept = [self.lines[k] for k in span if k not in drop]
        line = next((s.line for s in group if s.line), 0)
        line = line or (group[0].start + 1 if page == self.lib_file else 1)
        return [(page_block(page, line, kept), False), *moved]

    def blocks(self) -> list[Read]:
        """The library's blocks in its order: a page's statements one after another make
        one."""
        try:
            found = self.statements()
        except SyntaxError:  # not Python: taken whole, as written
            return [(page_block(self.lib_file, 1, self.lines), False)]
        result: list[Read] = []
        group: list[_Statement] = []
        for k, statement in enumerate(found):
            group.append(statement)
            page = statement.page or self.lib_file
            if k + 1 == len(found) or (found[k + 1].page or self.lib_file) != page:
                result.extend(self.split(group, page))
                group = []
        return result


def read_foreign(text: str, lib_file: str, pages: Pages) -> list[Read]:
    """The blocks of a library d2lbook wrote (see the module's documentation), each marked
    when it is a method read out of a class body; ``pages``: the book's (:func:`read_pages`)."""
    if not text.strip():
        return []
    return ForeignLibrary(text, lib_file, pages).blocks()
