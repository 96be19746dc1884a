"""The render core is pure: ``polybook/render/`` itself imports neither Sphinx nor docutils
(nor their extensions); Sphinx is adapted at its edge, in ``polybook/render/sphinx/``, which
the pure modules do not import. polybook's Sphinx extensions and input lists have names of
their own (one per concern), whichever package they are in."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from polybook.paths import PACKAGE_ROOT

SPHINX = {"sphinx", "docutils", "myst_parser", "sphinxcontrib"}
ADAPTER = "polybook.render.sphinx"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return names


def test_the_render_core_imports_no_sphinx_and_not_its_adapter() -> None:
    core = sorted((PACKAGE_ROOT / "render").glob("*.py"))
    assert len(core) > 10
    found = {
        path.name: sorted(
            name
            for name in imported(path)
            if name.split(".")[0] in SPHINX or name == ADAPTER or name.startswith(ADAPTER + ".")
        )
        for path in core
    }
    assert {name: found for name, found in found.items() if found} == {}
    adapter = PACKAGE_ROOT / "render" / "sphinx"
    assert (adapter / "__init__.py").is_file() and any(
        "sphinx" in {n.split(".")[0] for n in imported(p)} for p in adapter.glob("*.py")
    )


def _is_extension(path: Path) -> bool:
    """Whether ``path`` is a Sphinx extension: a module-level ``setup(app)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == "setup" for n in tree.body)


def test_extensions_and_input_lists_have_names_of_their_own() -> None:
    modules = [p for p in PACKAGE_ROOT.rglob("*.py") if "__pycache__" not in p.parts]
    named = [p.stem for p in modules if _is_extension(p) or p.stem.endswith("inputs")]
    assert {stem: n for stem, n in Counter(named).items() if n > 1} == {}
