"""Plugins from outside the tree: an installed package adds an output and an executor through
entry points (``polybook.outputs``, ``polybook.executors``), which ``polybook build`` and
``--executor`` accept and ``polybook doctor`` lists; a broken one is an error naming it."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from polybook import plugins
from polybook.commands.cli import main
from polybook.config import executors
from polybook.pipeline import registry

from ..books import code, pages_book
from ..plugin_package import write_installed, write_plugin

ENTRY_POINTS = """\
[polybook.outputs]
cellcount = pbplugin.output:OUTPUT
{outputs}
[polybook.executors]
echo = pbplugin.registered:ECHO
"""


def _forget_plugins() -> None:
    plugins.installed.cache_clear()
    registry._plugins.cache_clear()
    executors._plugins.cache_clear()
    for name in [m for m in sys.modules if m == "pbplugin" or m.startswith("pbplugin.")]:
        del sys.modules[name]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on ``sys.path`` that an installer would have filled (the current folder:
    one in no book)."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.chdir(folder)
    _forget_plugins()
    yield folder
    _forget_plugins()


def _book(tmp_path: Path) -> Path:
    return pages_book(tmp_path / "book", {"a": code("x = 1") + code("y = 2"), "b": "# B\n"})


def test_an_installed_plugin_adds_an_output_and_an_executor(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_installed(site, ENTRY_POINTS.format(outputs=""))
    root = _book(tmp_path)
    assert main(["build", "cellcount", "--executor", "echo", "--root", str(root)]) == 0
    counts = (root / "_build" / "cellcount" / "counts.txt").read_text(encoding="utf-8")
    assert "a.md [pytorch]: 2 code cells; echoed by pbplugin echoed by pbplugin" in counts
    assert "b.md [pytorch]: 0 code cells" in counts
    capsys.readouterr()
    main(["doctor"])  # in no book
    said = capsys.readouterr().out
    assert "plugins:" in said
    assert (
        "✓ plugin        pbplugin 0.1: polybook.outputs cellcount = pbplugin.output:OUTPUT" in said
    )
    assert "pbplugin 0.1: polybook.executors echo = pbplugin.registered:ECHO" in said


@pytest.mark.slow
def test_a_plugin_output_that_says_how_the_site_links_it_is_held_and_linked(
    site: Path, tmp_path: Path
) -> None:
    write_installed(site, ENTRY_POINTS.format(outputs="printview = pbplugin.printview:OUTPUT"))
    root = pages_book(tmp_path / "book", {"a": "Words.\n", "b": "More words.\n"})
    assert main(["--quiet", "build", "printview", "--root", str(root)]) == 0
    assert main(["--quiet", "build", "html", "--executor", "none", "--root", str(root)]) == 0
    held = root / "_build" / "html" / "_print" / "book-pytorch.html"
    assert held.read_text(encoding="utf-8") == "<p>pytorch: a.md, b.md, index.md</p>"
    page = (root / "_build" / "html" / "b.html").read_text(encoding="utf-8")
    link = '<a class="pb-printview" data-pb-follow="pytorch" href="_print/book-pytorch.html">'
    assert link + "The book as print view" in page
    (root / "_build" / "printview" / "book-pytorch.html").unlink()  # no longer built
    assert main(["--quiet", "build", "html", "--executor", "none", "--root", str(root)]) == 0
    assert not held.exists()
    assert "pb-printview" not in (root / "_build" / "html" / "b.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("broken = pbplugin.missing:OUTPUT", "does not load: ModuleNotFoundError"),
        ("wrong = pbplugin.registered:ECHO", "names a Registered where polybook.outputs takes"),
        ("html = pbplugin.output:OUTPUT", "takes the name of polybook's own 'html'"),
        ("other = pbplugin.output:OUTPUT", "names the Output 'cellcount', not 'other'"),
    ],
)
def test_a_broken_plugin_is_an_error_naming_it_not_a_traceback(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str, why: str
) -> None:
    write_installed(site, ENTRY_POINTS.format(outputs=entry))
    root = _book(tmp_path)
    assert main(["build", "lib", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    point = f"entry point polybook.outputs {entry}"
    assert err.startswith(f"polybook: plugin pbplugin 0.1: {point} {why}"), err
    assert "Traceback" not in err
    assert not (root / "_build").exists()
    main(["doctor"])  # in no book
    said = capsys.readouterr().out
    assert f"✗ plugin        plugin pbplugin 0.1: {point}" in said


def test_no_plugin_installed_lists_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert [p for p in plugins.listed() if p.package.startswith("pbplugin")] == []
    monkeypatch.chdir(tmp_path)
    main(["doctor"])  # in no book
    said = capsys.readouterr().out
    assert "plugins: none (no entry point polybook.outputs or polybook.executors)" in said


@pytest.mark.slow
def test_a_plugin_package_installed_into_a_venv_builds_with_its_output_and_executor(
    tmp_path: Path,
) -> None:
    home = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(home)
    (site,) = home.glob("lib/python*/site-packages")
    tool = sysconfig.get_paths()["purelib"]  # polybook and pip, as the tool's venv has them
    (site / "tool.pth").write_text(f"import site; site.addsitedir({tool!r})\n", encoding="utf-8")
    source = write_plugin(tmp_path / "pbplugin")
    python = str(home / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, str(source)], check=True, timeout=300)
    assert (site / "pbplugin-0.1.dist-info" / "entry_points.txt").is_file()
    root = _book(tmp_path)
    polybook = [python, "-m", "polybook"]
    command = [*polybook, "build", "cellcount", "--executor", "echo", "--root", str(root)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    counts = (root / "_build" / "cellcount" / "counts.txt").read_text(encoding="utf-8")
    assert "a.md [pytorch]: 2 code cells; echoed by pbplugin" in counts
    doctor = [*polybook, "doctor"]
    said = subprocess.run(doctor, check=False, capture_output=True, text=True, cwd=tmp_path)
    assert "pbplugin 0.1: polybook.outputs cellcount = pbplugin.output:OUTPUT" in said.stdout


def test_a_plugin_executor_carries_its_own_section_read_checked_and_given_as_options(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    write_installed(site, ENTRY_POINTS.format(outputs=""))
    book = "[build]\ntabs = pytorch\n[executor-echo]\nword = shouted\ntimes = 2\nwrod = x\n"
    root = pages_book(tmp_path / "book", {"a": code("x = 1")}, book)
    assert main(["build", "cellcount", "--executor", "echo", "--root", str(root)]) == 0
    counts = (root / "_build" / "cellcount" / "counts.txt").read_text(encoding="utf-8")
    assert "a.md [pytorch]: 1 code cells; shouted by pbplugin shouted by pbplugin\n" in counts
    assert (
        "config.ini:6: unknown key [executor-echo] wrod is ignored; did you mean `word`?"
        in caplog.text
    )
    root = pages_book(tmp_path / "options", {"a": code("x = 1")}, book)
    options = ["--executor", "echo", "--word", "whispered", "--times", "1"]
    assert main(["build", "cellcount", *options, "--root", str(root)]) == 0
    counts = (root / "_build" / "cellcount" / "counts.txt").read_text(encoding="utf-8")
    assert "a.md [pytorch]: 1 code cells; whispered by pbplugin\n" in counts
    capsys.readouterr()
    assert main(["build", "cellcount", "--times", "0", "--root", str(root)]) == 1
    said = capsys.readouterr().err
    assert "command line: [executor-echo] times: 0 is too small: the least accepted is 1" in said


def test_a_plugin_executor_whose_section_is_not_named_after_it_is_an_error_naming_it(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_installed(site, "[polybook.executors]\nshout = pbplugin.registered:ECHO\n")
    assert main(["build", "lib", "--root", str(_book(tmp_path))]) == 1
    err = capsys.readouterr().err
    point = "entry point polybook.executors shout = pbplugin.registered:ECHO"
    assert f"{point} declares the section [executor-echo], not [executor-shout]" in err
    assert "Traceback" not in err
