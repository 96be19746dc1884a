"""d2lbook's set-up cell and its ``#required_libs(...)``: the cell is in no notebook; the
libraries go to the notebooks the cell belongs to, which install them first, one at a time;
a build names the page's line where the framework's environment lacks one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from nbformat import NotebookNode

from polybook.config.declarations import SHIPPED
from polybook.diagnostics import PolybookError, Reporter
from polybook.environments.venvs import Environment
from polybook.execution.required_libs import check_required_libs
from polybook.meta import notebook_meta
from polybook.notebooks.student import PageInfo, student_notebook
from polybook.notebooks.variants import REGISTRY as VARIANTS
from polybook.render.plain import Plain
from polybook.source.parse import parse
from polybook.source.readable import Readable
from polybook.source.required_libs import check_set_up_cells
from polybook.source.split import split

FENCE = "`" * 3
TABS = ("pytorch", "jax")
GYM = ("setuptools==66", "wheel==0.38.4", "gym==0.21.0")
SETUP = (
    f"{FENCE}{{.python .input}}\n%load_ext d2lbook.tab\ntab.interact_select(['pytorch', 'jax'])\n"
    '#required_libs("setuptools==66", "wheel==0.38.4", "gym==0.21.0")\n'
    f"{FENCE}\n\n# Q-Learning\n\n"
)  # the required_libs line is line 4


def cell(spec: str, code: str) -> str:
    return f"{FENCE}{{.python .input}}\n%%tab {spec}\n{code}\n{FENCE}\n\n"


def notebooks(text: str, reporter: Reporter | None = None) -> dict[str, NotebookNode]:
    doc = parse(text, "rl/q.md", TABS)
    return {fw: split(doc, SHIPPED[fw], TABS, reporter=reporter) for fw in TABS}


def test_the_set_up_cell_is_in_no_notebook_and_its_libraries_are_the_first_frameworks() -> None:
    found = notebooks(SETUP + cell("pytorch, jax", "import gym"))
    for fw, nb in found.items():
        code = [c.source for c in nb.cells if c.cell_type == "code"]
        assert code == ["import gym"], fw
    pytorch, jax = (notebook_meta(found[fw]) for fw in TABS)
    assert (pytorch.required_libs, pytorch.required_line) == (GYM, 4)
    assert jax.required_libs == ()  # a cell without a tab line is the first framework's


def test_single_quotes_and_extras_read_as_pip_reads_them() -> None:
    text = SETUP.replace(
        '"setuptools==66", "wheel==0.38.4", "gym==0.21.0"',
        "'syne-tune[gpsearchers]==0.3.2', 'gpytorch'",
    )
    meta = notebook_meta(notebooks(text)["pytorch"])
    assert meta.required_libs == ("syne-tune[gpsearchers]==0.3.2", "gpytorch")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("gym", 'expected #required_libs("name==version", ...)'),
        ('"gym", version=1', 'expected #required_libs("name==version", ...)'),
        ('"gym=0.21"', "#required_libs: 'gym=0.21' is not a requirement pip reads"),
    ],
)
def test_a_line_pip_cannot_read_is_an_error_at_it(arguments: str, message: str) -> None:
    text = SETUP.replace('"setuptools==66", "wheel==0.38.4", "gym==0.21.0"', arguments)
    with pytest.raises(PolybookError) as raised:
        notebooks(text)
    assert str(raised.value).startswith(f"rl/q.md:4: {message}")


def test_code_beside_d2lbooks_lines_and_a_stray_line_are_warned_of() -> None:
    reporter = Reporter(quiet=True)
    text = SETUP.replace("tab.interact_select", "import os\ntab.interact_select")
    found = notebooks(text + cell("jax", '#required_libs("optax")\nimport optax'), reporter)
    assert [str(d) for d in reporter.warnings] == [
        "rl/q.md:3: `import os` is in the cell of `%load_ext d2lbook.tab`, which no notebook"
        " shows or runs (as in d2lbook): move it to a cell of its own [polybook.split.setup_cell]",
        "rl/q.md:12: #required_libs is read in the cell of `%load_ext d2lbook.tab` alone (as"
        " d2lbook reads it): here it is a comment, and nothing is installed"
        " [polybook.split.required_libs]",
    ]
    jax = found["jax"]
    assert [c.source for c in jax.cells if c.cell_type == "code"] == [
        '#required_libs("optax")\nimport optax'
    ]


def test_the_install_cell_installs_the_pages_libraries_first_one_at_a_time(
    tmp_path: Path,
) -> None:
    nb = notebooks(SETUP + cell("pytorch", "import gym\nfrom d2l import torch as d2l"))["pytorch"]
    info = PageInfo(
        page="rl/q.md",
        title="Q-Learning",
        framework_name="PyTorch",
        book_title="A Book",
        requirements=("d2l==1.0.3", "torch==2.13.0"),
        page_libraries=notebook_meta(nb).required_libs,
    )
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    plain = Plain(Readable({}), tmp_path)
    colab = student_notebook(nb, VARIANTS["colab"], info, kernel, plain)
    install = colab.cells[1].source.split("\n")
    assert [line for line in install if not line.startswith("#")] == [
        "%pip install -q setuptools==66",
        "%pip install -q wheel==0.38.4",
        "%pip install -q gym==0.21.0",
        "%pip install -q d2l==1.0.3 torch==2.13.0",
    ]
    jupyter = student_notebook(nb, VARIANTS["jupyter"], info, kernel, plain)
    header = jupyter.cells[0].source
    assert "It needs `pip install setuptools==66`, then `pip install wheel==0.38.4`, then" in header
    assert "torch==2.13.0` (Colab and SageMaker versions install them)." in header


def test_a_build_names_the_line_of_a_library_the_environment_lacks(tmp_path: Path) -> None:
    """The environment: the Python running the tests (nbformat 5.11.1 installed, gym not)."""
    text = SETUP.replace(
        '"setuptools==66", "wheel==0.38.4", "gym==0.21.0"',
        '"nbformat==5.11.1", "nbformat>=99", "gym==0.21.0"',
    )
    nb = notebooks(text)["pytorch"]
    env = Environment(SHIPPED["pytorch"], Path(sys.prefix), tmp_path, tmp_path / "r.txt")
    reporter = Reporter(quiet=True)
    check_required_libs({"pytorch": [("rl/q.md", nb)]}, {"pytorch": env}, reporter)
    messages = [str(d) for d in reporter.warnings]
    assert [m.split(" (")[0] for m in messages] == [
        "rl/q.md:4 [pytorch]: #required_libs names nbformat>=99, which the pytorch environment"
        " does not hold",
        "rl/q.md:4 [pytorch]: #required_libs names gym==0.21.0, which the pytorch environment"
        " does not hold",
    ]
    assert "(nbformat is at 5.11.1)" in messages[0] and "(gym is not installed)" in messages[1]
    assert messages[1].endswith(
        "pin it in a requirement file named by [build] requirements (`pytorch:FILE`), then run"
        " `polybook env setup --tab pytorch` [polybook.exec.required_libs]"
    )
    unread = Reporter(quiet=True)
    check_required_libs({"pytorch": [("rl/q.md", nb)]}, {"pytorch": env}, unread, pages=())
    assert unread.warnings == []  # a page the build does not run


def test_polybook_check_reports_them_without_splitting() -> None:
    reporter = Reporter(quiet=True)
    text = SETUP.replace('"setuptools==66", "wheel==0.38.4", "gym==0.21.0"', "gym")
    doc = parse(text + cell("jax", '#required_libs("optax")'), "rl/q.md", TABS)
    check_set_up_cells([doc], reporter)
    assert [str(d).split(":")[:2] for d in reporter.errors] == [["rl/q.md", "4"]]
    assert [str(d).split(":")[:2] for d in reporter.warnings] == [["rl/q.md", "11"]]
