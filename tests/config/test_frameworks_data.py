"""Frameworks are data: a book declares a fifth one in config.ini, and a tab it never declares
still splits, extracts its library and renders.

The fixture (``fixtures/fifth_book``) has the tabs ``numpy`` (declared: its own environment
from the book's pinned file) and ``plain`` (undeclared, a label as in a d2lbook book: it runs
in the default Python environment).
"""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from polybook import frameworks
from polybook.commands.cli import main
from polybook.config import load_config
from polybook.config.declarations import shipped
from polybook.diagnostics import PolybookError
from polybook.environments import venvs
from polybook.source.marks import infer_gpus

from ..books import Collect, code, pages_book
from ..books import copy_fixture as copy_book


def fifth_book(tmp_path: Path, build: str = "", extra: str = "") -> Path:
    """The fixture with ``build`` lines added to its ``[build]`` and ``extra`` appended."""
    root = copy_book(tmp_path / "book", "fifth_book")
    config = root / "config.ini"
    given = {line.partition("=")[0].strip() for line in build.splitlines()}
    kept = [
        x
        for x in config.read_text(encoding="utf-8").splitlines(keepends=True)
        if x.partition("=")[0].strip() not in given
    ]
    text = "".join(kept).replace("[build]\n", f"[build]\n{build}", 1)
    config.write_text(text + extra, encoding="utf-8")
    return root


@pytest.fixture
def messages() -> Iterator[Collect]:
    collected = Collect()
    logger = logging.getLogger("polybook")
    logger.addHandler(collected)
    try:
        yield collected
    finally:
        logger.removeHandler(collected)


def build(root: Path, target: str = "html", *more: str) -> int:
    return main(["--quiet", "--root", str(root), "build", target, *more])


def test_a_declared_framework_is_read_from_the_book_and_overrides_are_key_by_key(
    tmp_path: Path,
) -> None:
    override = "\n[framework-pytorch]\ndisplay_name = Torch\n"
    config = load_config(fifth_book(tmp_path, extra=override))
    numpy = config.framework("numpy")
    assert (numpy.declared, numpy.display_name, numpy.module) == (True, "NumPy", "numpy")
    assert numpy.requirements("cpu") == config.root / "requirements/numpy.txt"
    assert numpy.requirements("cuda") == numpy.requirements("cpu")  # none of its own
    assert config.framework("plain").declared is False
    torch = config.framework("pytorch")
    assert torch.display_name == "Torch"
    assert torch.requirements("cpu") == shipped("pytorch").requirements("cpu")
    assert torch.kernel_name == "polybook-pytorch"
    # The declared device naming feeds the GPU inference.
    assert infer_gpus("x = on_device(1)", numpy) == 2
    assert infer_gpus("x = on_device(1)", torch) == 0


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            "gpu_patterns = on_device\n",
            "config.ini:14: [framework-numpy] gpu_patterns: 'on_device': it has no group for"
            " the GPU index [polybook.config]",
        ),
        (
            "kernel_env = VERBOSE\n",
            "config.ini:14: [framework-numpy] kernel_env: 'VERBOSE' is not NAME=VALUE"
            " [polybook.config]",
        ),
    ],
)
def test_a_bad_declaration_is_an_error_at_its_line(
    tmp_path: Path, extra: str, expected: str
) -> None:
    root = fifth_book(tmp_path)
    config = root / "config.ini"
    declared = config.read_text(encoding="utf-8").replace(
        "gpu_patterns = on_device\\((\\d+)\\)\n", ""
    )
    config.write_text(declared + extra, encoding="utf-8")
    with pytest.raises(PolybookError) as info:
        load_config(root)
    assert str(info.value) == expected


def test_book_requirement_files_must_pin_every_package(tmp_path: Path) -> None:
    root = fifth_book(tmp_path, build="requirements = numpy:requirements/loose.txt\n")
    (root / "requirements/loose.txt").write_text("tabulate==0.9.0\nrich>=13\n", encoding="utf-8")
    with pytest.raises(PolybookError) as info:
        load_config(root)
    assert str(info.value).startswith(
        f"{root / 'requirements/loose.txt'}:2: 'rich>=13' is not pinned: name one version"
    )
    (root / "config.ini").write_text("[build]\nrequirements = torch:x.txt\n", encoding="utf-8")
    with pytest.raises(PolybookError) as info:
        load_config(root)
    assert "'torch' is not one of the tabs (pytorch); did you mean 'pytorch'?" in str(info.value)


@pytest.mark.slow
def test_an_undeclared_tab_splits_extracts_and_renders_without_execution(
    tmp_path: Path, messages: Collect
) -> None:
    root = fifth_book(tmp_path, build="eval_notebook = false\n")
    assert build(root) == 0
    assert messages.messages == []
    assert "math.fsum(values)" in (root / "d2l/plain.py").read_text()
    assert "np.asarray(values).sum()" in (root / "d2l/numpy.py").read_text()
    html = (root / "_build/html/chapter_arrays/sums.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(html, "html.parser")
    labels = {b.get_text(strip=True): b["data-pb-tab"] for b in soup.select("button.pb-tab")}
    assert labels == {"NumPy": "numpy", "plain": "plain"}
    assert "Plain Python needs no framework." in html


def test_a_declaration_overrides_the_default_environment_and_paddle_is_known(
    tmp_path: Path,
) -> None:
    root = fifth_book(tmp_path, build="tabs = plain, paddle\n")
    config = load_config(root)
    plain, paddle = config.framework("plain"), config.framework("paddle")
    assert (plain.declared, plain.environment_name) == (False, ".default")
    assert plain.requirements("cpu") == frameworks.DEFAULT_REQUIREMENTS
    assert config.library_for("plain").lib_file == "d2l/plain.py"
    # d2l-zh's tab needs no [framework-paddle]: polybook ships it.
    assert (paddle.declared, paddle.display_name, paddle.module) == (
        True,
        "PaddlePaddle",
        "paddle",
    )
    assert paddle.requirements("cuda").name == "paddle.txt"
    envs = config.envs
    assert venvs.environment(plain, "cpu", envs).path.name.startswith(".default")
    declared = "\n[framework-plain]\nmodule = math\ncpu_requirements = requirements/numpy.txt\n"
    config = load_config(fifth_book(tmp_path / "again", build="tabs = plain\n", extra=declared))
    plain = config.framework("plain")
    assert (plain.declared, plain.environment_name, plain.module) == (True, "plain", "math")
    assert venvs.environment(plain, "cpu", config.envs).path.name.startswith("plain")


@pytest.mark.slow
def test_a_fifth_framework_runs_in_its_own_environment_with_the_books_packages(
    tmp_path: Path, messages: Collect
) -> None:
    root = fifth_book(tmp_path)
    page = root / "chapter_arrays/sums.md"
    cell = (
        "\n```{.python .input}\nimport sys\nprint(sys.prefix)\nimport {module}\n"
        "print(tabulate.tabulate([[1, 2]]))\n```\n"
    )
    text = page.read_text(encoding="utf-8")
    # The page imports a package the environment lacks: the message says where to add it.
    page.write_text(text + cell.replace("{module}", "pb_absent_package"), encoding="utf-8")
    assert build(root, "eval", "--tab", "numpy") == 1
    (missing,) = [m for m in messages.messages if "No module named" in m]
    assert missing.startswith("chapter_arrays/sums.md:48 [numpy] cell 4: ModuleNotFoundError")
    assert "the numpy environment lacks 'pb_absent_package'" in missing
    assert "[build] requirements in config.ini" in missing and "`numpy:FILE`" in missing
    assert missing.endswith("[polybook.exec.missing_package]")
    page.write_text(text + cell.replace("{module}", "tabulate"), encoding="utf-8")
    # Declared, it is installed into that environment, and the notebook runs.
    config = root / "config.ini"
    text = config.read_text(encoding="utf-8")
    lines = "[build]\nrequirements = numpy:requirements/extra.txt\n"
    config.write_text(text.replace("[build]\n", lines, 1), encoding="utf-8")
    messages.messages.clear()
    assert build(root, "html", "--tab", "numpy") == 0, messages.messages
    html = (root / "_build/html/chapter_arrays/sums.html").read_text(encoding="utf-8")
    assert "total: 10" in html and "-  -" in html  # d2l.total, then tabulate's table
    # The kernel's sys.prefix: the numpy environment (in a shared folder, one of its sets).
    assert re.search(r"/numpy(-[0-9a-f]{16})?\n", html)
    # A package the book stops asking for leaves the environment.
    config.write_text(text, encoding="utf-8")
    assert main(["--quiet", "--root", str(root), "env", "setup", "--tab", "numpy"]) == 0
    loaded = load_config(root)
    extras = loaded.extra_requirements("numpy")
    env = venvs.book_environment(loaded.book, "numpy", "cpu", loaded.envs, extras)
    imported = subprocess.run([env.python, "-c", "import tabulate"], check=False)
    assert imported.returncode == 1


@pytest.mark.slow
def test_undeclared_tabs_run_in_one_default_python_environment(
    tmp_path: Path, messages: Collect
) -> None:
    """d2lbook's own manual has the tabs ``python, numpy, cpython``: labels, run in the
    Python d2lbook runs in; here, one default environment that they share."""
    cells = "".join(
        code(f"%%tab {tab}", "import sys", f"print({tab!r}, 1+1, sys.prefix)")
        for tab in ("python", "cpython")
    )
    root = pages_book(tmp_path / "book", {"add": cells}, "[build]\ntabs = python, cpython\n")
    assert main(["--root", str(root), "build", "html"]) == 0, messages.messages
    html = (root / "_build/html/add.html").read_text(encoding="utf-8")
    found = dict(re.findall(r"\b(c?python) 2 (\S*/\.default(?:-[0-9a-f]{16})?)\n", html))
    assert found.keys() == {"python", "cpython"} and len(set(found.values())) == 1, found
    said = [m for m in messages.messages if "declared by no framework" in m]
    assert len(said) == 1, messages.messages
    assert said[0].startswith("tabs python, cpython are declared by no framework: they run")
