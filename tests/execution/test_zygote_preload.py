"""The zygote preloads what the book's library imports *and* its pages use, read from the
pages (``execution.kernels.preload``)."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.execution.kernels.preload import zygote_preload
from tests.books import FENCE, code, pages_book

LIBRARY = "import sys\nimport numpy as np\nimport torchvision\nfrom torch import nn\n"


def _preload(root: Path) -> tuple[str, ...]:
    (root / "d2l").mkdir(exist_ok=True)
    (root / "d2l" / "torch.py").write_text(LIBRARY)  # the library as last written
    config = load_config(root)
    return zygote_preload(config.book, config.build, "pytorch")


def test_a_library_import_no_page_uses_is_not_preloaded(tmp_path: Path) -> None:
    pages = {
        "one": code("import torch", "from torch import nn"),
        "two": code("import numpy as np  #@save", "print(np.ones(2))"),
        "prose": "You could import torchvision, from which the datasets come.\n",
    }
    assert _preload(pages_book(tmp_path / "book", pages)) == ("numpy", "torch", "torch.nn")


def test_pages_that_import_the_library_preload_all_it_imports(tmp_path: Path) -> None:
    pages = {"one": code("from d2l import torch as d2l", "d2l.plot([1])")}
    found = _preload(pages_book(tmp_path / "book", pages))
    assert found == ("numpy", "torchvision", "torch", "torch.nn")


def test_an_import_in_another_fence_counts(tmp_path: Path) -> None:
    pages = {"one": f"{FENCE}python\nimport torchvision\n{FENCE}\n"}
    assert _preload(pages_book(tmp_path / "book", pages)) == ("torchvision",)


def test_a_plot_drawn_in_a_function_preloads_matplotlib_up_to_pyplot(tmp_path: Path) -> None:
    # The figure and its backends cost each plotting kernel a second; pyplot binds itself to
    # the shell the kernel starts, so it stays the kernel's own import.
    drawing = code(
        "def draw(ys):  #@save", "    import matplotlib.pyplot as plt", "    plt.plot(ys)"
    )
    found = _preload(pages_book(tmp_path / "book", {"one": drawing}))
    assert found == (
        "matplotlib",
        "matplotlib.figure",
        "matplotlib.backends.backend_agg",
        "matplotlib.backends.backend_svg",
    )
