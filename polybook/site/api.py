"""The d2l library in the site: an API page per framework, made from the saved code.

Each page lists every public name of the framework's library (as
:func:`polybook.library.extract.public_names` finds them) with its signature and docstring, as
Sphinx Python objects: they go to the general index and the search. Each entry links to
the code that defines it in the book (``{pb-defined}``, resolved by the extension), and
that code links back to the entry. :func:`api_index` is what the extension reads for both.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from polybook.config import Book
from polybook.library.extract import public_names
from polybook.library.model import SavedBlock
from polybook.library.syntax import added_to_class
from polybook.memo import memoised
from polybook.render.myst import Lines
from polybook.render.names import API_FOLDER
from polybook.render.page import Page
from polybook.site.api_prose import PageProse, ProseIndex, described
from polybook.source.model import Document, Prose, TabProse

MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # ASCII punctuation, escaped
LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")  # reST and Markdown inline code
MAX_VALUE = 60  # characters of a saved constant's value shown
AUTODOC_MODULE = re.compile(r"^\s*\.\.\s+(?:current|auto)module::\s*(\S+)\s*$", re.M)


@dataclass(frozen=True)
class Entry:
    """One saved name as its API page shows it."""

    name: str  # the public name: ``try_gpu``, ``Trainer.prepare_batch`` (added to a class)
    kind: str  # a Python domain directive: function, class, method, data
    signature: str  # ``(i=0)``, or the value of a constant
    doc: str
    bases: str
    page: str  # docname of the page that saves it
    line: int


def api_docname(framework: str) -> str:
    return f"{API_FOLDER}/{framework}"


def module_name(book: Book, framework: str) -> str:
    """``d2l.torch``: what readers import, from the library file's path."""
    target = book.library_for(framework)
    package = PurePosixPath(target.lib_file).parent.name
    return f"{package}.{target.lib_name}" if package else target.lib_name


def _arguments(node: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool) -> str:
    args = node.args
    if drop_first and args.posonlyargs:
        args = ast.arguments(**{**args.__dict__, "posonlyargs": args.posonlyargs[1:]})
    elif drop_first and args.args:
        args = ast.arguments(**{**args.__dict__, "args": args.args[1:]})
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"({ast.unparse(args)}){returns}"


def _entry(name: str, node: ast.stmt, block: SavedBlock) -> Entry | None:
    page = block.path.removesuffix(".md")
    owner, _, short = name.rpartition(".")
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == short:
        added = added_to_class(node)
        if (added[0][0] if added else "") != owner:
            return None
        kind = "method" if owner else "function"
        doc = ast.get_docstring(node) or ""
        return Entry(name, kind, _arguments(node, bool(owner)), doc, "", page, block.line)
    if isinstance(node, ast.ClassDef) and node.name == name:
        init = next(
            (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
            None,
        )
        signature = _arguments(init, True).split(" -> ")[0] if init else ""
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        doc = ast.get_docstring(node) or ""
        return Entry(name, "class", signature, doc, bases, page, block.line)
    targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
    names = {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    if name in names and isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value:
        alone = any(isinstance(t, ast.Name) and t.id == name for t in targets)
        value = ast.unparse(node.value) if alone else ""  # not the tuple it is unpacked from
        value = value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"
        return Entry(name, "data", value, "", "", page, block.line)
    return None


@memoised(8192)
def _named_entry(name: str, block: SavedBlock) -> Entry | None:
    """The entry for ``name`` from the first statement of ``block`` that defines it; kept
    per block, as an edit of prose leaves the library's blocks as they were."""
    for node in block.tree.body:
        entry = _entry(name, node, block)
        if entry:
            return entry
    return None


def entries(
    blocks: Sequence[SavedBlock], prose: Mapping[str, PageProse] | None = None
) -> list[Entry]:
    """An entry for every public name of a library, sorted by what the page shows; one
    without a docstring is described by the ``prose`` (page path -> its prose blocks) before
    the code that saves it."""
    found = []
    for name, block in public_names(blocks).items():
        entry = _named_entry(name, block)
        if entry:
            if not entry.doc and prose:
                doc = described(name, prose.get(block.path, ()), block.line)
                entry = replace(entry, doc=doc)
            found.append(entry)
    return sorted(found, key=lambda e: (e.name.lower(), e.name))


def _paragraph(text: str) -> str:
    """Plain text as Markdown that shows it as it is, inline code (reST's too) as code."""
    parts, position = [], 0
    for match in LITERAL.finditer(text):
        parts.append(MARKDOWN_PUNCTUATION.sub(r"\\\1", text[position : match.start()]))
        parts.append(f"`{match.group(1) or match.group(2)}`")
        position = match.end()
    parts.append(MARKDOWN_PUNCTUATION.sub(r"\\\1", text[position:]))
    return "".join(parts)


def _escape(text: str) -> str:
    """A docstring as Markdown paragraphs (a blank line starts one)."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip())]
    return "\n\n".join(_paragraph(p) for p in paragraphs if p)


def _entry_lines(entry: Entry, framework: str) -> list[str]:
    if entry.kind == "data":
        value = [f":value: {entry.signature}"] if entry.signature else []
        head = [f":::{{py:data}} {entry.name}", *value, ""]
    else:
        head = [f":::{{py:{entry.kind}}} {entry.name}{entry.signature}", ""]  # any signature
    body = []
    if entry.bases:
        body += [f"Bases: {_escape(entry.bases)}", ""]
    if entry.doc:
        body += [_escape(entry.doc), ""]
    return [*head, *body, f"{{pb-defined}}`{framework} {entry.name}`", ":::", ""]


def api_page(book: Book, framework: str, found: Sequence[Entry]) -> Page:
    """The API page of one framework's library."""
    display = book.framework(framework).display_name
    module = module_name(book, framework)
    lines = [
        f"# {display} library: `{module}`",
        "",
        f"Every name the book saves into the {display} library, which readers import with"
        f" `from {module.rsplit('.', 1)[0]} import {module.rsplit('.', 1)[-1]} as d2l`."
        " Each entry links to the code that defines it.",
        "",
        f"```{{py:module}} {module}",
        ":no-index:",
        "```",
        "",
    ]
    for entry in found:
        lines += _entry_lines(entry, framework)
    page = Page(api_docname(framework), Lines())
    for line in lines:
        page.lines.add(line, 1)
    return page


def documented_modules(documents: Sequence[Document]) -> dict[str, str]:
    """The modules the book's own pages document with autodoc (``.. currentmodule::
    d2l.torch`` in an ``eval_rst`` block), each with the first page that does."""
    found: dict[str, str] = {}
    for doc in documents:
        for block in doc.blocks:
            text = block.text if isinstance(block, (Prose, TabProse)) else ""
            if "module::" in text and "eval_rst" in text:
                for match in AUTODOC_MODULE.finditer(text):
                    found.setdefault(match.group(1), doc.docname)
    return found


def api_index(
    book: Book,
    libraries: Mapping[str, Sequence[SavedBlock]],
    tabs: Sequence[str],
    documented: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What the extension needs: per framework, its page, module and saved names. A module
    the book documents itself (``documented``, module -> page) is linked to there: autodoc
    names its entries as the API page does (``d2l.torch.Trainer.fit``)."""
    index: dict[str, Any] = {}
    for fw in tabs:
        if fw not in libraries:
            continue
        module = module_name(book, fw)
        names = {
            e.name: {"page": e.page, "id": f"{module}.{e.name}"} for e in entries(libraries[fw])
        }
        doc = (documented or {}).get(module, api_docname(fw))
        index[fw] = {"doc": doc, "module": module, "names": names}
    return index


def api_pages(
    book: Book,
    libraries: Mapping[str, Sequence[SavedBlock]],
    tabs: Sequence[str],
    documented: Mapping[str, str] | None = None,
    prose: ProseIndex | None = None,
) -> list[Page]:
    """One API page per framework of ``tabs`` whose library saves something and that the
    book does not document itself (``documented``: the same entries twice would clash);
    ``prose`` describes the names without a docstring."""
    pages = []
    for fw in tabs:
        found = entries(libraries.get(fw, ()), (prose or {}).get(fw))
        if found and module_name(book, fw) not in (documented or {}):
            pages.append(api_page(book, fw, found))
    return pages
