"""The pages and settings of a new book: its ``config.ini``, ``index.md`` and one chapter
whose section writes its code once per framework and saves a function to the library."""

from __future__ import annotations

from collections.abc import Mapping

FENCE = "`" * 3

# Per shipped framework: the import a section starts with, and how a vector of ones reads.
EXAMPLES: Mapping[str, tuple[str, str]] = {
    "pytorch": ("import torch", "torch.ones(n)"),
    "mxnet": ("from mxnet import np, npx\n\nnpx.set_np()", "np.ones(n)"),
    "jax": ("import jax.numpy as jnp", "jnp.ones(n)"),
    "tensorflow": ("import tensorflow as tf", "tf.ones(n)"),
    "paddle": ("import paddle", "paddle.ones([n])"),
}


def config_ini(name: str, title: str, frameworks: tuple[str, ...], repository: str = "") -> str:
    """The book's ``config.ini``, each key explained; ``repository``: its GitHub
    repository, where its CI workflow publishes the notebooks."""
    declared = "".join(
        f"\n[framework-{fw}]\ncpu_requirements = requirements/cpu/{fw}.txt\n"
        f"cuda_requirements = requirements/cuda/{fw}.txt\n"
        for fw in frameworks
    )
    return f"""# The book's settings: d2lbook's sections and keys, and polybook's own.
# Every key is described in polybook's docs/configuration.md.

[project]
# Names the output files: _build/pdf/{name}-<framework>.pdf, the notebooks' zips.
name = {name}
title = {title}
author =
{_repository(repository)}
[build]
# One tab per framework on every page; the first is the one shown first.
tabs = {", ".join(frameworks)}
# Environments live in .envs/ (one per framework). To share them between books (one per
# requirement set), name a folder of your own:
# envs_dir = ~/.cache/polybook/envs
# Commit every notebook's outputs (`polybook freeze --all` after a build, then commit
# _freeze/): the site, the PDFs and the slides then build anywhere with no framework.
# freeze = all

# Each framework runs in its own environment, from the pinned packages of these files:
# the CPU set, and the CUDA set where nvidia-smi finds a GPU (or [build] device = cuda).
{declared}"""


def _repository(repository: str) -> str:
    if not repository:
        return ""
    return (
        "# The book's GitHub repository: its CI workflow publishes the Colab and SageMaker\n"
        "# notebooks to its `notebooks` branch, which each page's “Open in …” buttons open.\n"
        f"repository = {repository}\n"
    )


def index_md(title: str) -> str:
    return f"# {title}\n\n{FENCE}toc\n:maxdepth: 2\n\nchapter_intro/index\n{FENCE}\n"


def chapter_index() -> str:
    return f"# Introduction\n\n{FENCE}toc\n:maxdepth: 2\n\ntensors\n{FENCE}\n"


def _cell(text: str) -> str:
    return f"{FENCE}{{.python .input}}\n{text}\n{FENCE}\n\n"


def section(frameworks: tuple[str, ...]) -> str:
    """A section with one code cell per framework (``%%tab``), a function saved to the
    library (``#@save``), a cell every framework runs, and prose for one framework."""
    cells = ""
    for fw in frameworks:
        imports, ones = EXAMPLES[fw]
        saved = f'def ones(n):  #@save\n    """A vector of `n` ones."""\n    return {ones}'
        cells += _cell(f"%%tab {fw}\n{imports}\n\n\n{saved}")
    last = frameworks[-1]
    every = _cell("%%tab all\nx = ones(3)\nx")
    return f"""# Tensors
:label:`sec_tensors`

Each code block is written once per framework; the tabs above it switch between them, and
the choice holds on every page.

{cells}The function marked `#@save` goes into the book's library, `d2l/<framework>.py`:
later sections, and readers, call it as `d2l.ones`. A block for every framework:

{every}:begin_tab:`{last}`
Prose between these marks shows in the {last} tab only.
:end_tab:
"""


GITIGNORE = """# polybook's outputs and the framework environments: made again by a build
_build/
.envs/
__pycache__/
"""
