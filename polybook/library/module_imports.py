"""What a library file imports: the top-level modules, required or optional (imported under
``try: … except ImportError``, like IPython), the standard library left out."""

from __future__ import annotations

import ast
import sys

from polybook.memo import memoised

OPTIONAL = ("ImportError", "ModuleNotFoundError", "Exception")


@memoised(64)  # a library file is read again by each rebuild
def imports(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """Top-level module names ``source`` imports: (required, optional); stdlib left out.

    A module imported anywhere under ``try: … except ImportError`` is optional.
    """
    tree = ast.parse(source)
    required: set[str] = set()
    optional: set[str] = set()

    def names(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name.split(".")[0] for a in node.names}
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            return {node.module.split(".")[0]}
        return set()

    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import(h) for h in node.handlers):
            for inner in node.body:
                for sub in ast.walk(inner):
                    optional |= names(sub)
        required |= names(node)
    stdlib = set(sys.stdlib_module_names)
    return frozenset(required - optional - stdlib), frozenset(optional - stdlib)


def _catches_import(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(isinstance(k, ast.Name) and k.id in OPTIONAL for k in kinds)
