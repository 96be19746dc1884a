"""d2lbook books execute as their authors run them: every notebook imports the book's whole
library (a method a later page completes is there on every page), every cell runs (one that
fails for want of a device is badged and the page goes on), and a book built for fewer
frameworks than its cells name leaves the others' cells out."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from nbformat import NotebookNode

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.environments import devices
from polybook.execution.kernels.device_errors import MissingDevices
from polybook.execution.kernels.preload import library_imports
from polybook.meta import cell_meta
from polybook.source.book import load_book
from polybook.source.model import CodeCell, TabProse
from polybook.source.split import split_book

from ..books import FENCE, build, chapter_book, code, evaluate, pages_book, ran

# d2l-en's way: a class saved with a stub that a later page (its appendix) completes.
DESIGN = code(
    "import inspect  #@save",
    "",
    "def add_to_class(Class):  #@save",
    "    def wrapper(obj):",
    "        setattr(Class, obj.__name__, obj)",
    "    return wrapper",
    "",
    "class HyperParameters:  #@save",
    "    def save_hyperparameters(self, ignore=[]):",
    "        raise NotImplemented",
) + code("def unused():  #@save", "    return 0")
MODEL = code(
    "from d2l import torch as d2l",
    "",
    "class Model(d2l.HyperParameters):",
    "    def __init__(self, lr):",
    "        self.save_hyperparameters()",
    "",
    "print(Model(0.1).lr)",
)
PLAIN = code("from d2l import torch as d2l", "print(d2l.unused() + 42)")
UTILS = code(
    "from d2l import torch as d2l",
    "import inspect",
    "",
    "@d2l.add_to_class(d2l.HyperParameters)  #@save",
    "def save_hyperparameters(self, ignore=[]):",
    "    frame = inspect.currentframe().f_back",
    "    _, _, _, local_vars = inspect.getargvalues(frame)",
    "    for k, v in local_vars.items():",
    "        if k != 'self' and k not in ignore:",
    "            setattr(self, k, v)",
)


def printed(root: Path, page: str) -> list[str]:
    nb = json.loads((root / "_build/eval/pytorch" / page.replace(".md", ".ipynb")).read_text())
    return [
        out["text"].strip()
        for cell in nb["cells"]
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
    ]


@pytest.mark.slow
def test_a_method_a_later_page_saves_is_there_on_every_page(tmp_path: Path) -> None:
    pages = {"design": DESIGN, "model": MODEL, "plain": PLAIN, "utils": UTILS}
    root = chapter_book(tmp_path / "book", pages)
    assert ran(evaluate(root)) == {f"chap/{p}.md" for p in pages}
    assert printed(root, "chap/model.md") == ["0.1"]  # the appendix's method, not the stub
    # A change to the appendix's method re-runs the pages that use it, and no others.
    utils = root / "chap/utils.md"
    utils.write_text(utils.read_text().replace("setattr(self, k, v)", "setattr(self, k, v * 2)"))
    assert ran(evaluate(root)) == {"chap/utils.md", "chap/model.md"}
    assert printed(root, "chap/model.md") == ["0.2"]
    # A build of one page imports the same whole library.
    model = root / "chap/model.md"
    model.write_text(model.read_text().replace("print(Model(0.1).lr)", "print(Model(0.3).lr)"))
    assert build(root, "eval", str(model)) == 0
    assert printed(root, "chap/model.md") == ["0.6"]


# d2l-en's use-gpu page: defining cells name GPU indices the host may lack, and run.
DEVICES = (
    code(
        "import torch",
        "",
        "def cpu():",
        "    return torch.device('cpu')",
        "",
        "def gpu(i=0):",
        "    return torch.device(f'cuda:{i}')",
        "",
        "cpu(), gpu(), gpu(1)",
    )
    + code(
        "def try_gpu(i=0):",
        "    if torch.cuda.device_count() >= i + 1:",
        "        return gpu(i)",
        "    return cpu()",
        "",
        "try_gpu(), try_gpu(10)",
    )
    + code("x = torch.ones(2, device=try_gpu())", "print(x.sum().item())")
    + code("y = torch.ones(2, 3, device=gpu(1))", "y")
    + code("y + 1")  # reads what the badged cell would have made: badged too
    + code("#@requires gpus=2", "z = 'declared: never run on a smaller host'")
    + code("print(z)")
    + code("print('after', x.device)")
)


@pytest.mark.slow
def test_every_cell_runs_and_only_a_missing_device_gets_a_badge(tmp_path: Path) -> None:
    root = chapter_book(tmp_path / "book", {"devices": DEVICES})
    assert build(root, "html") == 0
    nb = json.loads((root / "_build/eval/pytorch/chap/devices.ipynb").read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    results = [
        "".join(o.get("data", {}).get("text/plain", "") + o.get("text", "") for o in c["outputs"])
        for c in cells
    ]
    assert "device(type='cuda', index=1)" in results[0]  # gpu(1) builds a device object
    gpus = devices.host_gpus()  # the badges say this host's count; two GPUs run every cell
    first = "device(type='cuda', index=0)" if gpus else "device(type='cpu')"
    assert results[1] == f"({first}, device(type='cpu'))"  # try_gpu falls back
    assert results[2].strip() == "2.0"
    badges = [cell_meta(c).skipped for c in map(_node, cells)]
    two = f"needs 2 GPUs; built on a host with {gpus}" if gpus < 2 else ""
    # Failed for want of CUDA, then a cell reading its ``y``; declared, then one reading ``z``.
    assert badges == ["", "", "", two, two, two, two, ""]
    assert results[7].strip() == "after cpu"
    assert gpus >= 2 or results[3:7] == ["", "", "", ""]
    soup = BeautifulSoup((root / "_build/html/chap/devices.html").read_text(), "html.parser")
    assert len(soup.select("div.pb-badge")) == (4 if gpus < 2 else 0)
    assert "Traceback" not in soup.get_text() and "AssertionError" not in soup.get_text()
    # The run that badged a cell is this host's: the next build takes it from the cache.
    assert ran(evaluate(root)) == set()


def _node(cell: dict[str, object]) -> NotebookNode:
    import nbformat

    node: NotebookNode = nbformat.from_dict(cell)  # type: ignore[no-untyped-call]
    return node


FOUR = (
    code("%%tab all", "import math")
    + code("%%tab pytorch, mxnet", "print('pytorch or mxnet')")
    + code("%%tab mxnet", "print('mxnet only')")
    + code("%%tab jax, tensorflow", "print('functional')")
    + ":begin_tab:`mxnet`\nMXNet alone.\n:end_tab:\n\n"
    + ":begin_tab:`pytorch, jax`\nPyTorch or JAX.\n:end_tab:\n\n"
    + f"{FENCE}{{.python .input}}\n%%tab pytorch\nprint(math.pi > 3)\n{FENCE}\n"
)


def test_a_book_built_for_fewer_frameworks_leaves_the_others_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = pages_book(tmp_path / "book", {"one": FOUR, "two": FOUR})
    config = load_config(root)
    reporter = Reporter(quiet=True)
    with caplog.at_level(logging.INFO, logger="polybook"):
        book = load_book(config.book, config.build, reporter)
    assert reporter.diagnostics == []
    page = next(d for d in book.documents if d.path == "one.md")
    cells = [b for b in page.blocks if isinstance(b, CodeCell)]
    assert [c.frameworks for c in cells] == [("pytorch",)] * 3
    assert [b.text for b in page.blocks if isinstance(b, TabProse)] == ["PyTorch or JAX."]
    assert "MXNet alone" not in str(page.blocks)
    notes = [r.getMessage() for r in caplog.records if "not in [build] tabs" in r.getMessage()]
    assert notes == [
        "left out the cells and prose of frameworks not in [build] tabs (pytorch):"
        " jax (2 pages), mxnet (2 pages), tensorflow (2 pages)"
    ]
    notebooks = split_book(book, config.build.tabs, reporter)
    assert list(notebooks) == ["pytorch"]
    sources = [c.source for c in notebooks["pytorch"][1][1].cells if c.cell_type == "code"]
    assert sources == ["import math", "print('pytorch or mxnet')", "print(math.pi > 3)"]
    # A name that is no framework is still a typo, located at its line.
    (root / "two.md").write_text("# two\n\n" + code("%%tab pytroch", "x = 1"))
    reporter = Reporter(quiet=True)
    with pytest.raises(Exception):  # noqa: B017  # BookInvalid
        load_book(config.book, config.build, reporter)
    assert [str(d) for d in reporter.errors] == [
        "two.md:4: %%tab names unknown framework 'pytroch'; did you mean 'pytorch'?"
        " (book tabs: pytorch) [polybook.parse.tab]"
    ]


@pytest.mark.slow
def test_a_page_opens_the_books_resources_as_in_the_book(tmp_path: Path) -> None:
    # d2l-en's computer-vision pages open ``../img/catdog.jpg``: d2lbook copies resources.
    page = code("print(open('../img/data.txt').read().strip())", "open('out.txt', 'w').close()")
    root = chapter_book(tmp_path / "book", {"reads": page}, build="resources = img/ d2l/\n")
    (root / "img").mkdir()
    (root / "img/data.txt").write_text("forty-two\n")
    assert ran(evaluate(root)) == {"chap/reads.md"}
    assert printed(root, "chap/reads.md") == ["forty-two"]
    assert not (root / "chap/out.txt").exists()  # written beside the run, not in the book
    assert not (root / "_build/eval/pytorch/d2l").exists()  # the snapshot is imported


def test_only_a_name_a_badged_cell_would_bind_passes_its_badge_on() -> None:
    missing = MissingDevices()
    missing.badged("Z = X.cuda(1)\nfor k in range(2):\n    pass\nimport numpy as np", "needs 2")
    assert missing.badge_of("NameError", "name 'Z' is not defined") == "needs 2"
    assert missing.badge_of("NameError", "name 'k' is not defined") == "needs 2"
    assert missing.badge_of("NameError", "name 'np' is not defined") == "needs 2"
    assert missing.badge_of("NameError", "name 'W' is not defined") == ""  # a real error
    assert missing.badge_of("TypeError", "name 'Z' is not defined") == ""


def library_imports_page(module: str) -> str:
    return code(
        f"import {module}  #@save",
        "from matplotlib import pyplot as plt  #@save",
        "from matplotlib_inline import backend_inline  #@save",
        "",
        "def plot(ys):  #@save",
        "    backend_inline.set_matplotlib_formats('png')",
        "    plt.plot(ys)",
        "    plt.show()",
    )


PLOTS = "\n\n".join(
    (
        code("import sys", "print('matplotlib' in sys.modules)"),
        "{import}",
        code("d2l.plot([1, 3, 2])"),
    )
)


@pytest.mark.slow
@pytest.mark.parametrize(("framework", "module"), [("pytorch", "torch"), ("mxnet", "mxnet")])
def test_kernels_start_with_what_the_library_imports_and_plots_show_inline(
    tmp_path: Path, framework: str, module: str
) -> None:
    # d2l-en's library imports torchvision, pandas, matplotlib…: 3 s a kernel, paid once by
    # the zygote its kernels fork from; matplotlib still draws inline in each kernel (MXNet's
    # environment pins matplotlib 3.7, whose pyplot binds itself to the shell it meets).
    config = f"[build]\ntabs = {framework}\n"
    plots = PLOTS.replace("{import}", code(f"from d2l import {module} as d2l"))
    root = pages_book(
        tmp_path / "book", {"lib": library_imports_page(module), "plots": plots}, config
    )
    assert build(root, "lib") == 0
    preloaded = library_imports(root / f"d2l/{module}.py")
    assert {module, "matplotlib"} <= set(preloaded)
    assert not {"matplotlib.pyplot", "matplotlib_inline.backend_inline"} & set(preloaded)
    assert ran(evaluate(root)) == {"lib.md", "plots.md"}
    nb = json.loads((root / f"_build/eval/{framework}/plots.ipynb").read_text())
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert outputs[0]["text"].strip() == "True"  # imported before the page asked
    assert [o for o in outputs if o["output_type"] == "error"] == []
    if framework == "pytorch":  # (matplotlib 3.7 under IPython 9 shows no figure at all)
        assert any("image/png" in o.get("data", {}) for o in outputs)
