"""Which saved definitions a notebook uses: the library part of its cache key.

A notebook uses the names it reads through the library (``d2l.NAME``, ``from d2l.torch
import NAME``), closed over the library's own references: a saved function calling
another, a base class, the methods ``add_to_class`` attaches to a class in use, an
``X[...] = …`` that extends a used ``X``. Saved code is hashed by its syntax tree, so
comments and formatting do not count. Where use cannot be decided statically
(``getattr(d2l, …)``, ``import *``, ``d2l.__dict__``, a cell that does not parse), the
key covers every block.

Every notebook imports the book's whole library, as readers import the installed package:
a name saved on a later page (a method a later ``add_to_class`` completes) is there on every
page, and a change to it re-runs the pages that use it, wherever they are.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from nbformat import NotebookNode

from polybook.config import Book
from polybook.library.canonical import canonical, legacy_dump
from polybook.library.head import read_library
from polybook.library.model import SavedBlock
from polybook.library.syntax import (
    LIBRARY,
    added_to_class,
    assigned_names,
    imported_names,
    parse_code,
)
from polybook.memo import memoised

MAGIC = re.compile(r"^\s*[%!]")


def _tree_text(tree: ast.AST, dialect: str) -> str:
    """The tree as key format 2 writes it, or (``dialect``, a Python version) as format 1
    did: ``ast.dump`` on that Python."""
    return legacy_dump(tree, dialect) if dialect else canonical(tree)


@memoised(8192)
def syntax_digest(code: str, dialect: str = "") -> str:
    """Hash of ``code``'s syntax tree (its text where it does not parse); ``dialect``: as key
    format 1 made it on that Python (see :mod:`polybook.library.canonical`)."""
    try:
        text = _tree_text(parse_code(code), dialect)
    except SyntaxError:
        text = "\0text\0" + code
    return hashlib.sha256(text.encode()).hexdigest()


def _quiet(source: str) -> bool:
    """Whether a cell ends with ``;`` (IPython then shows no result: part of its meaning)."""
    if ";" not in source:
        return False  # most cells: nothing to tokenize
    last = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
                last = tok.string if tok.type != tokenize.ENDMARKER else last
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source.rstrip().endswith(";")
    return last == ";"


@memoised(4096)
def cell_digest(source: str, dialect: str = "") -> str:
    """A code cell's meaning: its syntax tree where it is plain Python, else its text;
    ``dialect``: as key format 1 made it on that Python."""
    if any(MAGIC.match(line) for line in source.split("\n")):
        return "text:" + source
    try:
        tree = parse_code(source)
    except SyntaxError:
        return "text:" + source
    text = _tree_text(tree, dialect)
    kind = "ast" if dialect else "tree"
    return f"{kind}:{int(_quiet(source))}:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class BlockInfo:
    """What one saved block defines, extends and reads, and the hash of its tree."""

    defines: frozenset[str]
    extends: frozenset[str]  # classes ``add_to_class`` targets; names it subscripts or sets
    reads: frozenset[str]  # names (of any kind) it reads; library ones matter
    always: bool  # a statement with effects that defines nothing: every user sees it
    dynamic: bool  # reads the library in a way that cannot be followed
    digest: str


def _escapes(node: ast.AST) -> bool:
    """``from … import *`` or ``globals()``: names reached without being spelled."""
    if isinstance(node, ast.ImportFrom):
        return any(a.name == "*" for a in node.names)
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals"
    )


def _reads(
    nodes: list[ast.AST], modules: set[str], packages: frozenset[tuple[str, str]] = frozenset()
) -> tuple[set[str], set[str], bool]:
    """Names read as ``MOD.NAME`` (``MOD`` one of ``modules``, or ``PKG.MOD`` for a pair of
    ``packages``) and names read bare; True when the module escapes (``f(d2l)``, ``import *``,
    ``d2l.__dict__``, ``globals()``)."""
    through: set[str] = set()
    bare: set[str] = set()
    dynamic = False
    package_names = {p for p, _ in packages}
    spelled: set[int] = set()  # module (and package) names followed by an attribute
    for node in nodes:  # a tree's, as ast.walk gives them: parents before their children
        dynamic |= _escapes(node)
        if not isinstance(node, ast.Attribute):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in package_names:
            spelled.add(id(value))  # ``PKG.X``: another module of the package, or ours below
        ours = isinstance(value, ast.Name) and value.id in modules
        ours |= (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and (value.value.id, value.attr) in packages
        )
        if not ours:
            continue
        spelled.add(id(value))
        if node.attr.startswith("__"):
            dynamic = True
        else:
            through.add(node.attr)
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in modules and id(node) not in spelled:
                dynamic = True  # the module itself passed around: ``getattr(d2l, …)``
            bare.add(node.id)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in packages
            and id(node) not in spelled
        ):
            dynamic = True  # ``PKG.MOD`` passed around
    return through, bare, dynamic


@memoised(8192)
def block_info(code: str) -> BlockInfo:
    """Analyse one saved block (its code compiles: the library stage checked it); once for
    the frameworks whose blocks have the same code."""
    try:
        tree = parse_code(code)
    except SyntaxError:
        return BlockInfo(frozenset(), frozenset(), frozenset(), True, True, syntax_digest(code))
    defines: set[str] = set()
    extends: set[str] = set()
    always = False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defines.add(node.name)
            extends |= {cls for cls, _ in added_to_class(node)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defines |= imported_names(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound, extended = assigned_names(target)
                defines |= bound
                extends |= extended
        elif isinstance(node, ast.Pass) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            continue  # no effect
        else:
            always = True
    through, bare, dynamic = _reads(list(ast.walk(tree)), {LIBRARY})
    return BlockInfo(
        frozenset(defines),
        frozenset(extends),
        frozenset(through | bare),
        always,
        dynamic,
        syntax_digest(code),
    )


def notebook_reads(nb: NotebookNode, module: str) -> set[str] | None:
    """Library names ``nb``'s code cells read; None when that cannot be decided."""
    sources = tuple(str(c.source) for c in nb.cells if c.cell_type == "code")
    found = _sources_read(sources, module)
    return None if found is None else set(found)


@memoised(1024)
def _sources_read(sources: tuple[str, ...], module: str) -> frozenset[str] | None:
    """:func:`notebook_reads` of code cells ``sources`` (read once while they stay the same:
    ``polybook serve`` asks again after each edit)."""
    package, _, name = module.rpartition(".")
    modules: set[str] = set()  # names bound to the library module
    packages: set[tuple[str, str]] = set()  # (name bound to its package, module's name)
    direct: set[str] = set()
    trees: list[list[ast.AST]] = []  # each cell's nodes
    for source in sources:
        lines = source.split("\n")
        try:  # read once for cell_digest too, where there is no magic to blank
            tree = parse_code("\n".join("" if MAGIC.match(line) else line for line in lines))
        except SyntaxError:
            return None
        nodes = list(ast.walk(tree))
        trees.append(nodes)
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == module and alias.asname:
                        modules.add(alias.asname)
                    elif alias.name == package or alias.name.startswith(package + "."):
                        packages.add((alias.asname or package, name))
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                for alias in node.names:
                    if node.module == package and alias.name == name:
                        modules.add(alias.asname or name)
                    elif node.module == module:
                        if alias.name == "*":
                            return None
                        direct.add(alias.name)
    reads = set(direct)
    for nodes in trees:
        through, _, dynamic = _reads(nodes, modules, frozenset(packages))
        if dynamic:
            return None
        reads |= through
    return frozenset(reads)


def package_init(book: Book, framework: str) -> bytes:
    """The book's own ``d2l/__init__.py`` (part of what every notebook imports)."""
    init = book.root / PurePosixPath(book.library_for(framework).lib_file).parent
    path = init / "__init__.py"
    return path.read_bytes() if path.is_file() else b""


class LibraryUsage:
    """The saved blocks of one framework, analysed once; keys for each notebook.

    ``package`` is the library package's ``__init__.py``, which every notebook imports.
    """

    def __init__(self, blocks: Sequence[SavedBlock], lib_file: str, package: bytes = b"") -> None:
        self.blocks = list(blocks)
        self.infos = [block_info(b.code) for b in self.blocks]
        self.module = PurePosixPath(lib_file).with_suffix("").as_posix().replace("/", ".")
        self.package = hashlib.sha256(package).hexdigest()

    @classmethod
    def of(cls, book: Book, framework: str, blocks: Sequence[SavedBlock]) -> LibraryUsage:
        """The usage of ``framework``'s library of the book (its file's head, written by
        hand, is part of every key, as the package's ``__init__.py`` is)."""
        lib_file = book.library_for(framework).lib_file
        head = read_library(book.root / lib_file).head.encode()  # the author's lines
        return cls(blocks, lib_file, package_init(book, framework) + head)

    def key(self, nb: NotebookNode, dialect: str = "") -> str:
        """The library part of ``nb``'s cache key: the code it uses, and the package's
        ``__init__.py`` (``dialect``: in key format 1, as that Python made it)."""
        return self.digest_for(notebook_reads(nb, self.module), dialect) + self.package

    def used_blocks(self, nb: NotebookNode) -> list[int] | None:
        """Blocks (positions, in book order) that ``nb`` uses; None: undecidable."""
        names = notebook_reads(nb, self.module)
        return None if names is None else self.closure(names)

    def closure(self, names: Iterable[str]) -> list[int] | None:
        """The blocks that define or extend ``names``, and what those read (in the whole
        library: a method a later page attaches is there on every page)."""
        defining: dict[str, list[int]] = {}
        for i, info in enumerate(self.infos):
            for name in info.defines | info.extends:
                defining.setdefault(name, []).append(i)
        chosen = {i for i, info in enumerate(self.infos) if info.always}
        todo = [*names, *(r for i in chosen for r in self.infos[i].reads)]
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for i in defining.get(name, ()):
                if i not in chosen:
                    chosen.add(i)
                    todo.extend(self.infos[i].reads)
        if any(self.infos[i].dynamic for i in chosen):
            return None
        return sorted(chosen)

    def digest(self, nb: NotebookNode) -> str:
        """The library part of ``nb``'s key: the trees of the blocks it uses."""
        return self.digest_for(notebook_reads(nb, self.module))

    def digest_for(self, names: set[str] | None, dialect: str = "") -> str:
        """The same, from the names the notebook reads (None: undecidable)."""
        used = None if names is None else self.closure(names)
        digest = hashlib.sha256(b"all" if used is None else b"used")
        for i in range(len(self.blocks)) if used is None else used:
            info = self.infos[i]
            block = syntax_digest(self.blocks[i].code, dialect) if dialect else info.digest
            digest.update(block.encode())
        return digest.hexdigest()
