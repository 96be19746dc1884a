"""A stage's signature says what it reads: only the thin layers (the command line, the build
graph) and each output's ``output.py`` (the adapter from the configuration to its stage)
hold the whole ``BookConfig``; the stages take the ``Book`` and their sections."""

from __future__ import annotations

import ast
from pathlib import Path

from polybook.config import Book, BookConfig
from polybook.config.schema import SECTIONS
from polybook.paths import PACKAGE_ROOT

THIN = {"commands", "pipeline", "config"}  # the layers that open a book and build it


def names_config(path: Path) -> bool:
    """Whether ``path`` names ``BookConfig`` in its code (its imports, annotations, calls)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "BookConfig":
            return True
        if isinstance(node, ast.ImportFrom) and any(a.name == "BookConfig" for a in node.names):
            return True
        quoted = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if quoted and str(node.value).startswith("BookConfig"):  # type: ignore[attr-defined]
            return True  # a quoted annotation
    return False


def test_only_the_thin_layers_and_the_outputs_adapters_see_the_whole_config() -> None:
    stages = [
        path
        for path in PACKAGE_ROOT.rglob("*.py")
        if "__pycache__" not in path.parts
        and len(path.relative_to(PACKAGE_ROOT).parts) > 1
        and path.relative_to(PACKAGE_ROOT).parts[0] not in THIN
    ]
    assert len(stages) > 150
    seen = sorted(
        str(p.relative_to(PACKAGE_ROOT))
        for p in stages
        if p.name != "output.py" and names_config(p)
    )
    assert seen == []
    adapters = [p for p in stages if p.name == "output.py"]
    assert len(adapters) >= 5 and any(names_config(p) for p in adapters)


def test_the_book_is_what_every_stage_shares_and_no_section(tmp_path: Path) -> None:
    (tmp_path / "config.ini").write_text("[project]\nname = b\n[build]\ntabs = jax, pytorch\n")
    config = BookConfig(tmp_path)
    fields = set(Book.__dataclass_fields__)
    assert not fields & {section.SECTION for section in SECTIONS} - {"project"}
    book = config.book
    assert book is config.book  # made once per config
    assert (book.root, book.layout, book.jobs) == (
        config.root,
        config.layout,
        config.effective_jobs,
    )
    assert book.library_for("jax") == config.library_for("jax")
