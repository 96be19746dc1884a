"""Authoring pieces without a server: pages as notebooks and back, the kernelspec that
environments keep current, the kernels' ``d2l`` path, ``polybook env kernels --user``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from polybook.authoring.kernel_ext import Tab, _book_library, tab_names
from polybook.authoring.pages import PageError, to_notebook, to_page
from polybook.environments import venvs
from polybook.layout import EnvsFolder
from polybook.nb import new_code_cell, new_markdown_cell, validate

from ..books import REPO, looks_installed

FIXTURE_PAGES = sorted(
    p.relative_to(REPO).as_posix() for p in (REPO / "tests" / "fixtures").rglob("*.md")
)


@pytest.mark.parametrize("page", FIXTURE_PAGES)
def test_every_fixture_page_round_trips_byte_identical(page: str) -> None:
    raw = (REPO / page).read_bytes().decode("utf-8")
    nb = to_notebook(raw)
    validate(nb)
    assert to_page(nb) == raw


def test_cells_are_fences_and_the_text_between_kept_verbatim() -> None:
    raw = "# T\n:label:`x`\n\n```{.python .input}\n%%tab jax\nx = 1\n```\n\n\n```bash\nls\n```\n"
    nb = to_notebook(raw)
    assert [(c.cell_type, c.source) for c in nb.cells] == [
        ("markdown", "# T\n:label:`x`"),
        ("code", "%%tab jax\nx = 1"),
        ("markdown", "```bash\nls\n```"),
    ]
    assert nb.cells[2].metadata["polybook"] == {"before": ["", ""]}


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeffA\r\n\r\n```{.python .input}\r\nx\r\n```\r\n",  # BOM and CRLF
        "```{.python .input}\n```\n\n``` {.python .input}\n  \n```",  # empty, odd fence, no EOL
        "text\n   \n\n```{.python .input}\n````\n``````\n",  # a fence with backticks inside
        "\n\n",
        "",
    ],
)
def test_unusual_layouts_round_trip(raw: str) -> None:
    assert to_page(to_notebook(raw)) == raw


def test_new_cells_get_the_usual_layout_and_outputs_never_reach_the_page() -> None:
    nb = to_notebook("# T\n")
    code = new_code_cell("print('```')", "a")
    code.outputs = [{"output_type": "stream", "name": "stdout", "text": "OUTPUT"}]
    nb.cells += [code, new_markdown_cell("More.\n\n", "b"), new_code_cell("", "c")]
    assert to_page(nb) == (
        "# T\n\n```{.python .input}\nprint('```')\n```\n\nMore.\n\n```{.python .input}\n\n```\n"
    )


def test_a_page_with_mixed_line_endings_does_not_open() -> None:
    with pytest.raises(PageError, match="mixes line endings"):
        to_notebook("a\r\nb\n")


def test_tab_names_and_selected_follow_the_frameworks() -> None:
    assert tab_names("pytorch, jax") == ("pytorch", "jax")
    assert tab_names("all") == ("pytorch", "mxnet", "jax", "tensorflow", "paddle")
    tab = Tab("jax")
    assert tab.selected("jax") and tab.selected(["mxnet", "jax"]) and not tab.selected("mxnet")
    with pytest.raises(ValueError, match="framework names"):
        tab.selected("jaxx")


def test_the_kernel_puts_the_book_found_above_its_folder_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = tmp_path / "book"
    folder = book / "_build" / "eval" / "jax" / "chapter"
    folder.mkdir(parents=True)
    (book / "config.ini").write_text("[project]\n")
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "path", ["/a", "/b"])
    monkeypatch.setenv("PYTHONPATH", "/a")
    assert _book_library() == book.resolve()
    assert sys.path == ["/a", str(book.resolve()), "/b"]
    # The build's library snapshot on PYTHONPATH is left to win.
    snapshot = tmp_path / "snapshot"
    (snapshot / "d2l").mkdir(parents=True)
    (snapshot / "d2l" / "__init__.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(snapshot))
    monkeypatch.setattr(sys, "path", [str(snapshot), "/b"])
    assert _book_library() is None
    assert sys.path == [str(snapshot), "/b"]


def fake_env(root: Path) -> venvs.Environment:
    """A jax environment whose packages look installed (no kernelspec yet)."""
    return looks_installed(venvs.environment("jax", "cpu", EnvsFolder(root, shared=True)))


def test_a_changed_kernelspec_is_rewritten_without_installing(tmp_path: Path) -> None:
    env = fake_env(tmp_path)
    spec = env.kernels_dir / env.kernel_name / "kernel.json"
    spec.parent.mkdir(parents=True)
    spec.write_text('{"argv": ["python", "-m", "ipykernel_launcher"]}')  # an older spec
    assert not venvs.is_ready(env)
    assert venvs.ensure(env) == "kernelspec"  # rewritten alone: no venv, no pip here
    assert venvs.is_ready(env)
    assert venvs.ensure(env) == ""
    assert venvs.kernelspec(env)["env"]["POLYBOOK_FRAMEWORK"] == "jax"


def test_the_kernelspec_is_the_same_whichever_name_started_polybook() -> None:
    probe = "from polybook.paths import running_python; print(running_python())"
    names = [n for n in ("python", "python3") if (Path(sys.executable).parent / n).exists()]
    seen = {
        subprocess.run(
            [str(Path(sys.executable).parent / name), "-c", probe],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for name in names
    }
    assert len(names) == 2
    assert len(seen) == 1, seen


def test_env_kernels_user_installs_into_the_users_jupyter_path(tmp_path: Path) -> None:
    book = tmp_path / "book"
    book.mkdir()
    (book / "config.ini").write_text(f"[build]\ntabs = jax\nenvs_dir = {tmp_path / 'envs'}\n")
    env = fake_env(tmp_path / "envs")
    environ = {**os.environ, "JUPYTER_DATA_DIR": str(tmp_path / "data")}
    command = [
        sys.executable,
        "-m",
        "polybook",
        "env",
        "kernels",
        "--user",
        "--root",
        str(book),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=environ, check=False)
    assert done.returncode == 0, done.stderr
    target = tmp_path / "data" / "kernels" / "polybook-jax"
    assert f"installed polybook-jax in {target}" in done.stdout
    spec = env.kernels_dir / "polybook-jax" / "kernel.json"
    assert (target / "kernel.json").read_bytes() == spec.read_bytes()
