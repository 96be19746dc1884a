"""Split stage: one :class:`Document` -> one nbformat 4.5 notebook per framework.

d2lbook's set-up cell (``%load_ext d2lbook.tab``) is in no notebook; what its
``#required_libs(...)`` names goes into the notebook's metadata (see
:mod:`polybook.source.required_libs`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from polybook.diagnostics import PolybookError, Reporter
from polybook.frameworks import Framework
from polybook.memo import HeldMemo
from polybook.meta import CellMeta, NotebookMeta, Requires, set_cell_meta, set_notebook_meta
from polybook.nb import (
    Notebooks,
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    validate,
)
from polybook.source.book import ParsedBook
from polybook.source.marks import CellMarks, Line, read_marks
from polybook.source.model import CodeCell, Document, Prose, TabProse, Toc
from polybook.source.required_libs import (
    check_setup_cell,
    check_stray_mention,
    is_setup_cell,
    required_libs,
)
from polybook.source.selected import select_branches

if TYPE_CHECKING:
    from nbformat import NotebookNode

# Each page's notebooks, by the page's parse (kept while it is: its identity is the key).
SPLIT: HeldMemo[NotebookNode] = HeldMemo(8192)


def toc_markdown(toc: Toc) -> str:
    options = [f":{key}: {value}".rstrip() for key, value in toc.options]
    return "\n".join(["```toc", *options, "", *toc.entries, "```"])


def cell_lines(
    cell: CodeCell, fw: Framework, path: str, tabs: tuple[str, ...]
) -> tuple[list[Line], CellMarks]:
    """The lines of ``cell`` for ``fw`` (branches decided, marks read, blank edges dropped),
    each with its page line; and what the marks say."""
    numbered = list(enumerate(cell.source.split("\n"), start=cell.line))
    marks = read_marks(select_branches(numbered, fw.name, path, tabs), path, fw)
    lines = list(marks.lines)
    while lines and not lines[-1][1].strip():
        lines.pop()
    while lines and not lines[0][1].strip():
        lines.pop(0)
    return lines, marks


def code_cell(
    cell: CodeCell, cell_id: str, fw: Framework, path: str, tabs: tuple[str, ...]
) -> NotebookNode:
    """The notebook cell of ``cell`` for ``fw``; metadata maps lines back to ``path``."""
    lines, marks = cell_lines(cell, fw, path, tabs)
    meta = CellMeta(
        line=lines[0][0] if lines else cell.line,
        source_map=tuple(n for n, _ in lines),
        frameworks=cell.frameworks,
        timeout=marks.timeout,
        requires=Requires(marks.gpus, marks.gpus_declared) if marks.gpus else None,
    )
    node = new_code_cell("\n".join(t for _, t in lines), cell_id)
    set_cell_meta(node, meta)
    if marks.tags:
        node.metadata["tags"] = list(marks.tags)
    return node


def split(
    doc: Document,
    fw: Framework,
    tabs: tuple[str, ...],
    check: bool = True,
    reporter: Reporter | None = None,
) -> NotebookNode:
    """The notebook of ``doc`` for ``fw``: its prose, its prose tabs and its cells; what the
    set-up cell holds besides d2lbook's lines goes to ``reporter``."""
    framework = fw.name
    nb = new_notebook()
    nb.metadata["kernelspec"] = {
        "name": fw.kernel_name,
        "display_name": f"Python 3 ({fw.display_name})",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    meta = NotebookMeta(doc.path, framework)
    for index, block in enumerate(doc.blocks):
        cell_id = doc.cell_id(index)
        if isinstance(block, CodeCell):
            if framework not in block.frameworks:
                continue
            if is_setup_cell(block):  # d2lbook's set-up cell: in no notebook
                meta = _with_required_libs(meta, block, doc.path, reporter)
                continue
            if reporter is not None:
                check_stray_mention(block, doc.path, reporter)
            node = code_cell(block, cell_id, fw, doc.path, tabs)
            if node.source.strip():
                nb.cells.append(node)
            continue
        if isinstance(block, Toc):
            text, line = toc_markdown(block), block.line
        elif isinstance(block, TabProse):
            if framework not in block.frameworks:
                continue
            text, line = block.text.strip("\n"), block.line
        elif isinstance(block, Prose):
            text, line = block.text.strip("\n"), block.line
        if text.strip():
            md = new_markdown_cell(text, cell_id)
            set_cell_meta(md, CellMeta(line=line))
            nb.cells.append(md)
    set_notebook_meta(nb, meta)
    if check:  # our own output's schema: skipped by `polybook check`, which writes none
        validate(nb)
    return nb


def _with_required_libs(
    meta: NotebookMeta, cell: CodeCell, path: str, reporter: Reporter | None
) -> NotebookMeta:
    """``meta`` with what the set-up ``cell`` requires (a later such cell's replaces an
    earlier's, as in d2lbook); what else the cell holds is warned of."""
    if reporter is not None:
        check_setup_cell(cell, path, reporter)
    found = required_libs(cell, path)
    if found is None:
        return meta
    return replace(meta, required_libs=found.libraries, required_line=found.line)


def _split_once(
    doc: Document, fw: Framework, tabs: tuple[str, ...], check: bool, reporter: Reporter
) -> NotebookNode:
    """:func:`split`, kept for the page as parsed (the parse of an unchanged page is kept
    too, :data:`polybook.source.book.PARSED`): an unchanged page's notebook is the very one
    of the last build, which the later stages' memos know by identity. It is read, never
    changed: a stage that changes a notebook changes a copy (``polybook.nb.copy_notebook``).
    """
    return SPLIT.get(
        (doc,),
        f"{fw!r}\0{tabs}\0{check}",
        lambda found: split(doc, fw, tabs, check, found),
        reporter,
    )


def split_book(
    book: ParsedBook, tabs: Sequence[str], reporter: Reporter, check: bool = True
) -> Notebooks:
    result: Notebooks = {fw: [] for fw in tabs}
    for doc in book.documents:
        for fw in tabs:
            try:
                notebook = _split_once(
                    doc, book.book.framework(fw), book.book.tabs, check, reporter
                )
                result[fw].append((doc.path, notebook))
            except PolybookError as err:
                reporter.error(err)
    return result
