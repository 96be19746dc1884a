"""Code's syntax tree as text that no Python version changes: what cache and ``_freeze/`` keys
hash (key format 2), and the text ``ast.dump`` gave each Python (key format 1), to re-key
entries made with it.

Format 2 writes each node as its type and its fields sorted by name, leaving out the fields
that are ``None`` or ``[]``: the fields a newer Python adds to every node of a type
(``type_params=[]`` on ``def`` and ``class`` since 3.12, ``TypeVar.default_value`` since 3.13)
are empty wherever older code is parsed, so they do not count, and the text is this module's,
not ``ast.dump``'s (3.13 left empty fields out of its dump). An f-string's empty texts do not
count either (3.12 adds one to a format spec ending with a field).
"""

from __future__ import annotations

import ast
import sys
from typing import Any

KEY_FORMAT = 2  # 1: ast.dump's text, which differs between Python versions
LEGACY_DIALECTS = ("3.11", "3.12", "3.13")  # format 1 as these dumped it (3.10: as 3.11)
_KEEP_NONE = (ast.Constant, ast.MatchSingleton)  # their ``value=None`` is the code's None
_TYPE_PARAMS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # 3.12 added the field


def canonical(node: Any) -> str:
    """``node`` (a tree, a list of them, a constant) as key format 2's text."""
    if isinstance(node, ast.AST):
        fields = []
        for name in sorted(node._fields):
            value = getattr(node, name, None)
            if isinstance(node, ast.JoinedStr) and name == "values":
                value = [v for v in value or [] if not _empty_text(v)]
            if (value is None or value == []) and not isinstance(node, _KEEP_NONE):
                continue
            fields.append(f"{name}={canonical(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(canonical(x) for x in node) + "]"
    return repr(node)


def _empty_text(node: ast.AST) -> bool:
    """Whether ``node`` is an f-string's empty text: 3.12 (3.12.1 at least) ends a format spec
    that ends with a field with one (``f"{x:<{width}}"``), other Pythons do not."""
    return isinstance(node, ast.Constant) and node.value == ""


def own_dialect(minor: int = sys.version_info.minor) -> str:
    """How this Python (3.``minor``) wrote ``ast.dump`` (the format-1 keys this host made)."""
    return "3.11" if minor <= 11 else "3.12" if minor == 12 else "3.13"


def legacy_dump(node: ast.AST, dialect: str) -> str:
    """``ast.dump(node)`` as Python ``dialect`` (3.11, 3.12, 3.13) wrote it: key format 1.
    ``node`` is this Python's, whichever it is: a field it has and ``dialect`` had not is left
    out, and a format spec that ends with a field ends with an empty text in 3.12's only (as
    3.12.0 and 3.12.1 parse it)."""
    added = ("type_params",) if dialect >= "3.12" else ()
    return _dump(node, added, dialect >= "3.13", dialect == "3.12")


def _format_spec(spec: ast.JoinedStr, ends_with_text: bool) -> ast.JoinedStr:
    """``spec`` without its empty texts, then with one after a last field where
    ``ends_with_text`` (as 3.12.0 and 3.12.1 parse it)."""
    values = [v for v in spec.values if not _empty_text(v)]
    if ends_with_text and values and isinstance(values[-1], ast.FormattedValue):
        values.append(ast.Constant(value=""))
    return ast.JoinedStr(values=values)


def _dump(node: Any, added: tuple[str, ...], omit_empty: bool, texts: bool) -> str:
    """:func:`ast.dump`'s one-line form (``annotate_fields`` true, no ``indent``, where
    CPython's "simple" nodes are written as the others), after CPython's."""
    if isinstance(node, ast.AST):
        cls = type(node)
        args: list[str] = []
        names = node._fields
        if isinstance(node, _TYPE_PARAMS):
            names = tuple(n for n in names if n != "type_params") + added
        for name in names:
            value = getattr(node, name, [] if name in added else None)
            if name == "format_spec" and isinstance(value, ast.JoinedStr):
                value = _format_spec(value, texts)
            if value is None and getattr(cls, name, ...) is None:
                continue
            if omit_empty and (value is None or value == []) and not isinstance(node, _KEEP_NONE):
                continue
            args.append(f"{name}={_dump(value, added, omit_empty, texts)}")
        return f"{cls.__name__}({', '.join(args)})"
    if isinstance(node, list):
        return "[" + ", ".join(_dump(x, added, omit_empty, texts) for x in node) + "]"
    return repr(node)
