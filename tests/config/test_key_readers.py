"""Which stage reads which key is declared with the key (``read_by``): each output's no-op
check holds the keys it reads and no other, and a static check finds every read of an
output section's key (``html.base_url``, ``sections.pdf.main_font``, a name typed as the
section) in the stages' packages and holds it to the key's declaration."""

from __future__ import annotations

import ast
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from polybook.config import KEYS, Key, load_config, schema
from polybook.config.executors import executor_keys, registered
from polybook.output import Output, by_name
from polybook.pdf.places import pdf_file
from polybook.pipeline import state
from polybook.pipeline.registry import OUTPUTS
from polybook.pipeline.request import BuildRequest

from ..books import pages_book

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "polybook"
SECTIONS = {c.__name__: c.SECTION for c in schema.SECTIONS}  # every section of one per book
# ... and each registered executor's own, [executor-<name>]
SECTIONS |= {e.section.__name__: e.section.SECTION for e in registered().values() if e.section}
EVERY_KEY = (*KEYS, *executor_keys())
CHECKED = {section for section in SECTIONS.values()}
# The stages' packages beside the outputs' own: what they read, their outputs read.
EVERY = ("source", "library")  # the pages and the library: every output
EXECUTION = ("execution", "pipeline/execution.py")  # every output that executes


def _sections_named(annotation: ast.expr | None) -> set[str]:
    """The checked sections an annotation names (``HtmlSection``, ``PdfSection | None``)."""
    if annotation is None:
        return set()
    words = ast.unparse(annotation).replace('"', " ").replace("|", " ").replace(".", " ").split()
    return {SECTIONS[w] for w in words if w in SECTIONS}


def reads_in(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, section, key) of each read of a checked section's key: through a name typed as
    the section (a parameter, an annotated name, one assigned a call of a function that
    returns it) or an attribute named as the section (``config.html``, ``sections.pdf``)."""
    typed: dict[str, set[str]] = {}
    returns: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            returns[node.name] = _sections_named(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs]:
                typed.setdefault(arg.arg, set()).update(_sections_named(arg.annotation))
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            typed.setdefault(node.target.id, set()).update(_sections_named(node.annotation))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            for target in node.targets:
                if isinstance(target, ast.Name) and returns.get(called):
                    typed.setdefault(target.id, set()).update(returns[called])
    keys = {(key.section, key.name) for key in EVERY_KEY}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        base = node.value
        sections: set[str] = set()
        if isinstance(base, ast.Name):
            sections = typed.get(base.id, set())
        elif isinstance(base, ast.Attribute) and base.attr in CHECKED:
            sections = {base.attr}
        found += [(node.lineno, s, node.attr) for s in sorted(sections) if (s, node.attr) in keys]
    return found


@cache
def module_reads() -> dict[str, list[tuple[int, str, str]]]:
    """The reads in each module of polybook, by its path relative to polybook/."""
    return {
        path.relative_to(PACKAGE).as_posix(): reads_in(ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def _package_of(output: Output) -> str:
    """The package of polybook that builds ``output`` ("" for the pipeline's own stages)."""
    parts = output.writes.__module__.split(".")
    return parts[1] if len(parts) == 3 and parts[2] == "output" else ""


@cache
def _imports_render(package: str, module: str) -> bool:
    """Whether ``package`` imports ``module`` of render/ (``sphinx``: its Sphinx adapter)."""
    return any(
        f"polybook.render.{module}" in path.read_text(encoding="utf-8")
        for path in (PACKAGE / package).rglob("*.py")
    )


def readers(relative: str) -> list[Output]:
    """The outputs whose build runs the module at ``relative`` (to polybook/)."""
    if relative.startswith(EVERY):
        return list(OUTPUTS)
    if relative.startswith(EXECUTION):
        return [o for o in OUTPUTS if o.executes]
    if relative.startswith("render/"):
        module = relative.removeprefix("render/").split("/")[0].removesuffix(".py")
        return [o for o in OUTPUTS if _package_of(o) and _imports_render(_package_of(o), module)]
    return [o for o in OUTPUTS if _package_of(o) and relative.startswith(_package_of(o) + "/")]


def undeclared(keys: tuple[Key, ...] = EVERY_KEY) -> list[str]:
    """Each read of a key by a stage whose output the key does not declare."""
    declared = {(key.section, key.name): key for key in keys}
    found = []
    for relative, reads in module_reads().items():
        outputs = readers(relative)
        if not outputs:
            continue  # the command line, the build graph and the no-op check
        for line, section, name in reads:
            key = declared[(section, name)]
            for output in outputs:
                if not key.read_for(output.name, output.executes):
                    found.append(f"{relative}:{line}: [{section}] {name} read by {output.name}")
    return found


def test_every_stage_reads_only_keys_declared_read_by_its_output() -> None:
    assert undeclared() == [], "declare the readers in the key's read_by"


def test_every_key_declares_its_readers() -> None:
    assert [f"[{key.section}] {key.name}" for key in EVERY_KEY if not key.read_by] == []
    assert ("executor-dask", "scheduler") in {(key.section, key.name) for key in EVERY_KEY}


def test_the_check_finds_the_stages_reads() -> None:
    every = {(path, section, name) for path, r in module_reads().items() for _, section, name in r}
    assert {
        ("pdf/fonts.py", "pdf", "main_font"),  # a parameter typed as the section
        ("notebooks/variants.py", "sagemaker", "kernel"),  # the result of a method
        ("site/extras.py", "colab", "github_repo"),  # a record's field
        ("pipeline/execution.py", "html", "figure_format"),  # config.html
        ("config/book.py", "project", "bibfile"),  # the book-level bibliography
        ("drift/compare.py", "drift", "image_threshold"),
        ("execution/executors/dask.py", "executor-dask", "scheduler"),  # an executor's own
    } <= every
    assert {o.name for o in readers("render/sphinx/config.py")} == {"html", "pdf", "epub", "slides"}
    assert {o.name for o in readers("pipeline/execution.py")} == {
        o.name for o in OUTPUTS if o.executes
    }


def test_a_stage_reading_a_key_its_output_does_not_declare_fails_the_check() -> None:
    narrowing = {("html", "base_url"): ("html",), ("executor-dask", "scheduler"): ("worker",)}
    narrowed = tuple(
        replace(key, read_by=narrowing.get((key.section, key.name), key.read_by))
        for key in EVERY_KEY
    )
    found = undeclared(narrowed)
    assert any(
        f.startswith("execution/executors/dask.py:") and f.endswith("scheduler read by html")
        for f in found
    )
    assert any(
        f.startswith("epub/stage.py:") and f.endswith("base_url read by epub") for f in found
    )
    assert any("notebooks/library_source.py" in f for f in found)
    assert not any(f.startswith("site/") for f in found)


BOOK = """[project]
name = b
[build]
tabs = pytorch
[pdf]
main_font = {font}
latex_logo = logo.png
bibfile = refs.bib
[html]
base_url = {url}
favicon = icon.png
figure_format = {figures}
serve_port = {port}
[drift]
rtol = {rtol}
"""


def _read(tmp_path: Path, **values: str) -> dict[str, tuple[str, list[Path]]]:
    """What each output's no-op check reads of the book ``BOOK`` with ``values``."""
    chosen = {"font": "FreeSerif", "url": "https://a.org/", "figures": "svg", **values}
    chosen = {"port": "8000", "rtol": "0.001", **chosen}
    folder = tmp_path / "-".join(sorted(chosen.values())).replace("/", "").replace(":", "")
    root = pages_book(folder, {"a": "# A\n"}, BOOK.format(**chosen))
    config = load_config(root)
    return {o.name: (state.config_read(config, o), state.files_read(config, o)) for o in OUTPUTS}


def _changed(
    before: dict[str, tuple[str, list[Path]]], after: dict[str, tuple[str, list[Path]]]
) -> set[str]:
    return {name for name in before if before[name][0] != after[name][0]}


@pytest.mark.parametrize(
    ("values", "rebuilt"),
    [
        ({"font": "TeX Gyre Pagella"}, {"pdf"}),
        ({"url": "https://b.org/"}, {"html", "epub", "notebooks", "slides"}),
        ({"figures": "png"}, {"eval", "notebooks", "html", "pdf", "epub", "slides"}),
        ({"port": "8001"}, set()),  # read by polybook serve alone
        ({"rtol": "0.01"}, set()),  # read by polybook diff and upgrade
    ],
)
def test_each_output_is_rebuilt_by_the_keys_it_reads_alone(
    tmp_path: Path, values: dict[str, str], rebuilt: set[str]
) -> None:
    before, after = _read(tmp_path, **{}), _read(tmp_path, **values)
    assert _changed(before, after) == rebuilt


def test_each_output_hashes_the_files_its_keys_name(tmp_path: Path) -> None:
    read = _read(tmp_path)
    names = {output: {p.name for p in files} for output, (_, files) in read.items()}
    assert names["html"] == {"refs.bib", "icon.png"}
    assert names["pdf"] == {"refs.bib", "logo.png"}
    assert names["lib"] == {"refs.bib"}  # the pages' citations are read by every output


def test_a_new_pdf_font_leaves_the_sites_no_op_check_as_it_was(tmp_path: Path) -> None:
    root = pages_book(
        tmp_path / "book",
        {"a": "# A\n"},
        BOOK.format(font="A", url="", figures="svg", port=0, rtol=0.1),
    )
    config = load_config(root)
    by_name = {o.name: o for o in OUTPUTS}
    html = BuildRequest(by_name["html"], config.build.tabs)
    pdf = BuildRequest(by_name["pdf"], config.build.tabs)
    before = state.build_inputs(config, html), state.build_inputs(config, pdf)
    (root / "config.ini").write_text(BOOK.format(font="B", url="", figures="svg", port=0, rtol=0.1))
    config = load_config(root)
    after = state.build_inputs(config, html), state.build_inputs(config, pdf)
    assert before[0] == after[0] and before[1] != after[1]


def test_the_books_static_files_and_the_outputs_it_holds_are_the_sites_alone(
    tmp_path: Path,
) -> None:
    root = pages_book(tmp_path / "book", {"a": "# A\n"}, "[build]\ntabs = pytorch\n")
    config = load_config(root)
    html = BuildRequest(by_name(OUTPUTS)["html"], config.build.tabs, None, OUTPUTS)
    pdf = BuildRequest(by_name(OUTPUTS)["pdf"], config.build.tabs, None, OUTPUTS)
    before = state.build_inputs(config, html), state.build_inputs(config, pdf)
    (root / "static").mkdir()
    (root / "static" / "book.css").write_text("p { color: red }\n", encoding="utf-8")
    after_css = state.build_inputs(config, html), state.build_inputs(config, pdf)
    assert before[0] != after_css[0] and before[1] == after_css[1]  # the site's files alone
    pdf_file(config.layout, "pytorch").parent.mkdir(parents=True)
    pdf_file(config.layout, "pytorch").write_bytes(b"a pdf")  # the site holds the PDF it links
    after_pdf = state.build_inputs(config, html), state.build_inputs(config, pdf)
    assert after_css[0] != after_pdf[0]


def test_a_resource_s_files_are_read_by_every_output_less_the_library_it_holds(
    tmp_path: Path,
) -> None:
    config_text = "[build]\ntabs = pytorch\nresources = img/ d2l/\n"
    root = pages_book(tmp_path / "book", {"a": "# A\n"}, config_text)
    (root / "img" / "sub").mkdir(parents=True)
    (root / "img" / "sub" / "plot.svg").write_text("<svg/>", encoding="utf-8")
    (root / "d2l").mkdir(exist_ok=True)
    (root / "d2l" / "torch.py").write_text("x = 1\n", encoding="utf-8")
    config = load_config(root)
    html = BuildRequest(by_name(OUTPUTS)["html"], config.build.tabs, None, OUTPUTS)
    before = state.build_inputs(config, html)
    (root / "d2l" / "torch.py").write_text("x = 2\n", encoding="utf-8")  # a build writes it
    assert state.build_inputs(config, html) == before
    (root / "img" / "sub" / "plot.svg").write_text("<svg></svg>", encoding="utf-8")
    changed = state.build_inputs(config, html)
    assert changed != before
    (root / "img" / "sub" / "plot.svg").rename(root / "img" / "plot.svg")
    assert state.build_inputs(config, html) != changed  # a figure moved
