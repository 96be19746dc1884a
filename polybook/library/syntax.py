"""Reading saved code's syntax trees: the one place that knows how a statement binds names,
attaches methods with ``add_to_class`` and imports modules. Extraction
(:mod:`polybook.library.saves`), the aliases, the API pages and the analysis of what a
notebook uses (:mod:`polybook.library.usage`) all read the trees through it."""

from __future__ import annotations

import ast

from polybook.memo import memoised

LIBRARY = "d2l"  # the name the library module gives itself, and readers import it as


@memoised(8192)
def parse_code(code: str) -> ast.Module:
    """``code``'s syntax tree, read once for the frameworks that share it; callers must not
    change it."""
    return ast.parse(code)


def statement_start(node: ast.stmt) -> int:
    """First line of a statement, its decorators included."""
    return min(first_lines(node))


def first_lines(node: ast.stmt) -> list[int]:
    """Lines on which a part of a top-level statement starts: its decorators, itself."""
    return [*(int(d.lineno) for d in getattr(node, "decorator_list", [])), node.lineno]


def header_end(node: ast.stmt) -> int:
    """Last line of a statement's header (the whole statement when it has no body)."""
    body = getattr(node, "body", None)
    if (
        isinstance(body, list)
        and body
        and isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
    ):
        return max(node.lineno, int(body[0].lineno) - 1)
    return node.end_lineno or node.lineno


def is_add_to_class(func: ast.expr) -> bool:
    """``add_to_class`` or ``d2l.add_to_class``."""
    if isinstance(func, ast.Name):
        return func.id == "add_to_class"
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "add_to_class"
        and isinstance(func.value, ast.Name)
        and func.value.id == LIBRARY
    )


def added_to_class(node: ast.stmt) -> list[tuple[str, int]]:
    """``[("Trainer", line)]`` for a statement decorated with ``add_to_class(d2l.Trainer)``:
    each class it is attached to, with the decorator's line."""
    return [
        (ast.unparse(deco.args[0]).removeprefix(f"{LIBRARY}."), deco.lineno)
        for deco in getattr(node, "decorator_list", [])
        if isinstance(deco, ast.Call) and deco.args and is_add_to_class(deco.func)
    ]


def assigned_names(target: ast.expr) -> tuple[set[str], set[str]]:
    """Names an assignment target binds (``x``, ``x, *y``), and the names it extends
    (``X[k] = …``, ``X.a = …``, ``d2l.X = …``)."""
    if isinstance(target, ast.Name):
        return {target.id}, set()
    if isinstance(target, ast.Starred):
        return assigned_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        bound: set[str] = set()
        extended: set[str] = set()
        for element in target.elts:
            b, e = assigned_names(element)
            bound |= b
            extended |= e
        return bound, extended
    base = target
    while isinstance(base, (ast.Subscript, ast.Attribute)):
        inner = base.value
        if isinstance(inner, ast.Name) and inner.id == LIBRARY and isinstance(base, ast.Attribute):
            return set(), {base.attr}  # d2l.X = … / d2l.X[k] = …
        base = inner
    return set(), ({base.id} if isinstance(base, ast.Name) else set())


def imported_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    """Module-level names an import binds (``import a.b`` binds ``a``; ``*`` binds none
    that can be told)."""
    return {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}


def imported_modules(node: ast.stmt) -> list[str]:
    """The top-level modules an import statement loads (none for a relative import)."""
    if isinstance(node, ast.Import):
        return [alias.name.partition(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.partition(".")[0]]
    return []


def defined_names(node: ast.stmt) -> tuple[frozenset[str], frozenset[str]]:
    """What a top-level statement of the library defines: (module-level names,
    ``Class.method`` names). A def attached with ``add_to_class(C)`` is a method of ``C``
    only: the library does not keep its name at module level."""
    added = added_to_class(node)
    names: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and added:
        return frozenset(), frozenset({f"{added[0][0]}.{node.name}"})
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        names = {node.name}
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        names = imported_names(node)
    elif isinstance(node, ast.Assign):
        names = {name for target in node.targets for name in assigned_names(target)[0]}
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        names = assigned_names(node.target)[0]
    return frozenset(names), frozenset()


def mangled_names(node: ast.AST) -> bool:
    """Whether ``node`` names a private ``__attribute``, which Python mangles in a class body."""
    for inner in ast.walk(node):
        name = inner.id if isinstance(inner, ast.Name) else getattr(inner, "attr", "")
        if isinstance(name, str) and name.startswith("__") and not name.endswith("__"):
            return True
    return False
