"""No module outside an output's package names that output: a place, a step or a choice that
depends on the output asks the registry or what the output declares (``polybook.output``).
The modules that still spell an output's name do so for another thing of that name (a
config section, Sphinx's builder, a JSON field, a key's readers), each named here."""

from __future__ import annotations

import ast
from pathlib import Path

from polybook.pipeline.registry import OUTPUTS

POLYBOOK = Path(__file__).resolve().parents[2] / "polybook"
REGISTRY = {"output.py", "pipeline/registry.py"}  # what an output is, and the list of them
# The modules that spell an output's name, and which names, for what else bears it.
OTHER_MEANINGS = {
    "layout.py": {"html"},  # the site's folder: serve, linkcheck and the drift reports read it
    "config/load.py": {"pdf"},  # [pdf] bibfile, d2lbook's place for [project] bibfile
    "config/presented.py": {"html", "pdf"},  # config sections [html], [pdf]
    "config/schema/__init__.py": {"html", "pdf", "slides"},  # d2lbook's section names
    "config/schema/book.py": {"html", "notebooks", "slides", "pdf", "epub"},  # keys' readers
    "config/schema/editions.py": {"html"},  # keys' readers
    "config/schema/ignored.py": {"html", "pdf"},  # d2lbook's keys, by section
    "config/schema/libraries.py": {"html", "notebooks"},  # keys' readers
    "config/schema/outputs.py": {"html", "notebooks", "pdf", "epub", "slides"},  # sections
    "drift/report_text.py": {"notebooks"},  # a field of the report's JSON
    "render/page.py": {"html"},  # an output's kind in a cell's data (text/html)
    "render/sphinx/core_ext.py": {"html"},  # the kind of an output; Sphinx's rebuild flag
    "render/sphinx/html_writer.py": {"html"},  # Sphinx's builder format
    "render/sphinx/stable_config.py": {"html"},  # Sphinx's builder
    "source/parse.py": {"slides"},  # the marker of a page's slides section
}


def _packages() -> dict[str, str]:
    """Each output made in a package of its own, by name: its package's folder."""
    found = {}
    for output in OUTPUTS:
        module = output.writes.__module__.split(".")
        if len(module) > 2 and module[1] != "pipeline":  # the stages' outputs are pipeline's
            found[output.name] = module[1]
    return found


def _named(path: Path, names: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    }


def test_no_module_outside_an_outputs_package_names_it_but_for_another_meaning() -> None:
    packages = _packages()
    assert set(packages) == {"html", "pdf", "epub", "slides", "notebooks"}
    found = {}
    for path in sorted(POLYBOOK.rglob("*.py")):
        relative = path.relative_to(POLYBOOK).as_posix()
        if relative in REGISTRY or relative.split("/")[0] in packages.values():
            continue
        named = _named(path, set(packages)) - OTHER_MEANINGS.get(relative, set())
        if named:
            found[relative] = sorted(named)
    assert found == {}


def test_the_ci_workflow_and_the_layout_name_no_output_but_the_sites_folder() -> None:
    names = set(_packages())
    assert _named(POLYBOOK / "starter" / "github.py", names) == set()
    assert _named(POLYBOOK / "layout.py", names) == {"html"}
