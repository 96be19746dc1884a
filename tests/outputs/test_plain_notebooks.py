"""Every notebook polybook writes for people (the site's downloads, the students' Jupyter,
Colab and SageMaker notebooks, the slides' RISE notebooks) shows plain Markdown: no d2l role
nor tab mark, no MyST role, no directive block nor a fence left open or with attributes, no
image that does not open where the notebook is read. Read over the
shipped book and d2l-en's builders' guide (``fixtures/d2l_builders_guide``), in four
frameworks, built without executing them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ..books import build, copy_fixture, copy_shipped

ROLE = re.compile(r":(numref|ref|eqref|cite|citet|citep|label|eqlabel|width|height):`")
DIRECTIVE = re.compile(r"^\s*(`{3,}|~{3,})\s*(toc|eval_rst)\b", re.M)
TAB = re.compile(r":(begin|end)_tab:")
# A MyST role: ``{numref}`fig```, ``{cite:p}`key```.
MYST_ROLE = re.compile(r"\{[a-z][\w:-]*\}`")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})(.*)$", re.M)
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?|<img[^>]*\ssrc=[\"']([^\"']+)")
SITE = "https://example.org/book/"
FOR_PEOPLE = ("html/_notebooks", "notebooks", "slides")


def notebooks(root: Path) -> list[Path]:
    """Every notebook the build wrote for people."""
    build_dir = root / "_build"
    return sorted(p for f in FOR_PEOPLE for p in (build_dir / f).rglob("*.ipynb"))


def _broken(src: str, cell: dict[str, Any], html: Path) -> bool:
    """Whether the image ``src`` of ``cell`` fails to open in a notebook read on its own."""
    if src.startswith("attachment:"):
        return src.removeprefix("attachment:") not in cell.get("attachments", {})
    if src.startswith(SITE):
        return not (html / src.removeprefix(SITE)).is_file()
    return not src.startswith("data:")  # a relative path breaks once the file moves


def problems(path: Path, html: Path) -> list[str]:
    """The d2l marks and broken images in the Markdown cells of the notebook at ``path``."""
    found = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        found += [m.group(0) for m in ROLE.finditer(source)]
        found += [m.group(0).strip() for m in DIRECTIVE.finditer(source)]
        found += [m.group(0) for m in (*TAB.finditer(source), *MYST_ROLE.finditer(source))]
        found += leftover_fences(source)
        for match in IMAGE.finditer(source):
            src = match.group(1) or match.group(2)
            if _broken(src, cell, html):
                found.append(f"image {src}")
    return found


def leftover_fences(source: str) -> list[str]:
    """The fences of a Markdown cell that are not a plain code block's: one with attributes
    (``{.python .input}``, a MyST directive's ``{note}``), a colon fence, one left open."""
    found = []
    opened = ""
    for match in FENCE.finditer(source):
        fence, info = match.group(1), match.group(2).strip()
        if not opened:
            if fence.startswith(":") or info.startswith("{"):
                found.append(match.group(0).strip())
            opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened) and not info:
            opened = ""  # the block's closing fence
    return found + ([f"{opened} left open"] if opened else [])


def markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def built(folder: Path, name: str) -> Path:
    """The book built, not executed, into every output that writes notebooks: the shipped
    book unpublished (its images attached), d2l-en's published at ``SITE``."""
    if name == "shipped":
        root = copy_shipped(folder)
        config = (root / "config.ini").read_text(encoding="utf-8")
        config = config.replace("eval_notebook = True", "eval_notebook = false")
    else:
        root = copy_fixture(folder, "d2l_builders_guide")
        config = (root / "config.ini").read_text(encoding="utf-8")
        config += f"\n[html]\nbase_url = {SITE}\n"
    (root / "config.ini").write_text(config, encoding="utf-8")
    for target in ("notebooks", "slides", "html"):
        assert build(root, target) == 0, target
    return root


def test_the_check_finds_each_mark_left_in_a_markdown_cell(tmp_path: Path) -> None:
    left = {
        "Words.\n:begin_tab:`pytorch`\nFor PyTorch.\n:end_tab:\n": [":begin_tab:", ":end_tab:"],
        "As {numref}`fig-x` shows ({cite:p}`he`).": ["{numref}`", "{cite:p}`"],
        "```{.python .input}\nx = 1\n```\n": ["```{.python .input}"],
        "````{note}\nA note.\n````\n\n:::{tip}\nA tip.\n:::\n": ["````{note}", ":::{tip}"],
        "```python\nx = 1\n\nWords.\n": ["``` left open"],
        "```python\nx = {a}`b`\n```\n\n~~~\n```\n~~~\n": ["{a}`"],  # code says it: found
        "```python\nx = 1\n```\n\n~~~\n```\n~~~\n\n````\n```\n````\n": [],
    }
    for source, marks in left.items():
        path = tmp_path / "page.ipynb"
        cells = [{"cell_type": "markdown", "metadata": {}, "source": source}]
        path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
        assert problems(path, tmp_path) == marks, source


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory.mktemp("shipped") / "book", "shipped")


@pytest.fixture(scope="module")
def d2l_en(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory.mktemp("d2l") / "book", "d2l-en")


@pytest.mark.slow
@pytest.mark.parametrize("book", ["shipped", "d2l_en"])
def test_no_notebook_for_people_holds_d2l_markup_or_a_broken_image(
    book: str, request: pytest.FixtureRequest
) -> None:
    root: Path = request.getfixturevalue(book)
    found = notebooks(root)
    assert len(found) > 150  # downloads, three platforms, decks: four frameworks each
    html = root / "_build" / "html"
    bad = {p.relative_to(root).as_posix(): problems(p, html) for p in found}
    assert {name: marks for name, marks in bad.items() if marks} == {}


@pytest.mark.slow
def test_an_unpublished_book_reads_its_references_and_attaches_its_figure(shipped: Path) -> None:
    gpu = shipped / "_build/html/_notebooks/pytorch/chapter_builders-guide/use-gpu.ipynb"
    cells = markdown(gpu)
    assert cells[-1].startswith("## References\n\n- Raina, Rajat; Madhavan, Anand; Ng, Andrew")
    assert any("(Raina et al., 2009; Krizhevsky et al., 2012)" in c for c in cells)
    copying = next(c for c in cells if c.startswith("### Copying"))
    assert "Fig. 1.8.1" in copying and "(attachment:img-copy-between-devices.svg)" in copying
    index = "\n".join(markdown(shipped / "_build/notebooks/jax/colab/index.ipynb"))
    assert "- [1 Builders' Guide](chapter_builders-guide/index.ipynb)" in index


@pytest.mark.slow
def test_a_published_book_links_its_sections_and_figures_on_the_site(d2l_en: Path) -> None:
    folder = d2l_en / "_build/notebooks/pytorch/sagemaker/chapter_builders-guide"
    page = folder / "model-construction.ipynb"
    text = "\n".join(markdown(page))
    assert f"({SITE}_notebooks/img/blocks.svg)" in text
    assert (d2l_en / "_build/html/_notebooks/img/blocks.svg").is_file()
    section = f"{SITE}chapter_builders-guide/model-construction.html?tab=pytorch"
    assert f"[Fig. 2.1.1]({section}#fig-blocks)" in text
    assert "He et al., 2016" in text and "- He, Kaiming; Zhang, Xiangyu" in text
