"""One executed notebook -> the notebook a student opens on one platform.

Outputs are kept; polybook's plumbing goes (its metadata, the skip tag, timing records,
the project-local kernel); its prose is plain Markdown (:mod:`polybook.render.plain`); hidden
cells stay hidden; a header links back to the page, and notebooks for a platform get an
install cell first (the page's ``#required_libs``, then the library and the framework).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.execution.kernels.badges import SKIP_TAG
from polybook.meta import KEY, cell_meta
from polybook.nb import new_code_cell, new_markdown_cell, validate
from polybook.notebooks.install import install_lines, install_source
from polybook.notebooks.variants import Variant
from polybook.render.plain import Plain

# The build host's Python version left out: a fresh run and a cached one write the same.
LANGUAGE_INFO = {
    "name": "python",
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "pygments_lexer": "ipython3",
}
HIDDEN = {  # tag -> what Jupyter hides
    "remove-cell": {"source_hidden": True, "outputs_hidden": True},
    "remove-input": {"source_hidden": True},
    "remove-output": {"outputs_hidden": True},
}


@dataclass(frozen=True)
class PageInfo:
    """What the header and the first cell of one notebook say."""

    page: str  # ``chap/tensors.md``
    title: str  # the page's heading
    framework_name: str  # ``PyTorch``
    book_title: str
    site_link: str = ""  # the page on the site, "" when not published
    links: tuple[tuple[str, str, str], ...] = ()  # (variant, platform, URL) of each opening
    requirements: tuple[str, ...] = ()
    page_libraries: tuple[str, ...] = ()  # its page's ``#required_libs``, installed first
    compat: str = ""  # the "works with" line of `polybook compat` ("" where not checked)


def needs_gpu(nb: NotebookNode) -> bool:
    """Whether a cell declares or is inferred to need a GPU (as the build decides)."""
    return any(c.cell_type == "code" and cell_meta(c).gpus > 0 for c in nb.cells)


def page_title(nb: NotebookNode, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                if line.startswith("# "):
                    return str(line[2:]).strip()
    return fallback


def _clean_code(cell: NotebookNode, variant: Variant) -> None:
    tags = [t for t in cell.metadata.get("tags", []) if t != SKIP_TAG]
    cell.metadata.pop("execution", None)
    if tags:
        cell.metadata["tags"] = tags
    else:
        cell.metadata.pop("tags", None)
    hidden: dict[str, bool] = {}
    for tag in tags:
        hidden.update(HIDDEN.get(tag, {}))
    if hidden:
        cell.metadata["jupyter"] = hidden
        if variant.hide_as_form and hidden.get("source_hidden"):
            cell.metadata["cellView"] = "form"


def _header(info: PageInfo, variant: Variant, gpu: bool) -> str:
    title = f"[{info.title}]({info.site_link})" if info.site_link else info.title
    lines = [f"*{info.book_title}* · {title} · the {info.framework_name} notebook"]
    if info.compat:
        lines.append(f"\n{info.compat}")
    if not variant.install_cell and (info.requirements or info.page_libraries):
        commands = install_lines(info.requirements, info.page_libraries)
        needs = ", then ".join(f"`pip install {c}`" for c in commands)
        them = "them" if len(commands) > 1 else "it"
        lines.append(f"\nIt needs {needs} (Colab and SageMaker versions install {them}).")
    opens = [f"[Open in {name}]({url})" for v, name, url in info.links if v != variant.name]
    if opens:
        lines.append("\n" + " · ".join(opens))
    if gpu and variant.gpu_note:
        lines.append(f"\n**{variant.gpu_note}**")
    return "\n".join(lines)


def student_notebook(
    nb: NotebookNode,
    variant: Variant,
    info: PageInfo,
    kernelspec: dict[str, str],
    plain: Plain,
) -> NotebookNode:
    """The ``variant`` notebook of executed ``nb`` (left untouched); ``plain`` reads its
    prose as plain Markdown (see :mod:`polybook.render.plain`)."""
    gpu = needs_gpu(nb)
    out = plain.notebook(nb, info.page)[0]
    out.metadata.pop(KEY, None)
    out.metadata["kernelspec"] = kernelspec
    out.metadata["language_info"] = copy.deepcopy(LANGUAGE_INFO)
    out.metadata.update(variant.metadata(info.page, gpu))
    cells = []
    for cell in out.cells:
        cell.metadata.pop(KEY, None)
        if cell.cell_type == "code":
            _clean_code(cell, variant)
        cells.append(cell)
    first = [new_markdown_cell(_header(info, variant, gpu), "polybook-header")]
    if variant.install_cell and (info.requirements or info.page_libraries):
        code = install_source(info.requirements, info.page_libraries)
        first.append(new_code_cell(code, "polybook-install"))
    out.cells = [*first, *cells]
    validate(out)
    return out
