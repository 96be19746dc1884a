"""``polybook new``: a book that checks at once, its requirement files the pins polybook
ships, its CI workflow valid for actionlint; ``--executor none`` runs nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.config.declarations import SHIPPED
from polybook.diagnostics import PolybookError
from polybook.environments.assets import assets_current, install_assets
from polybook.pdf.latex import DEBIAN_PACKAGES
from polybook.starter.pin import clone_requirement
from polybook.starter.repository import github_repository

from ..books import REPO

ACTIONLINT = Path(sys.executable).parent / "actionlint"


def new(tmp_path: Path, *options: str) -> tuple[int, Path]:
    target = tmp_path / "my-book"
    return main(["new", str(target), *options]), target


def actionlint(book: Path) -> subprocess.CompletedProcess[str]:
    """actionlint on the book's workflows, with its settings file where the book has one."""
    workflows = sorted(str(p) for p in (book / ".github" / "workflows").glob("*.yml"))
    settings = book / ".github" / "actionlint.yaml"
    config = ["-config-file", str(settings)] if settings.is_file() else []
    command = [str(ACTIONLINT), "-no-color", *config, *workflows]
    return subprocess.run(command, capture_output=True, text=True, cwd=book, check=False)


def test_a_new_book_checks_at_once_and_pins_what_polybook_ships(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, book = new(tmp_path, "--frameworks", "pytorch,jax")
    assert code == 0
    printed = capsys.readouterr().out
    assert f"cd {book}" in printed and "polybook build html" in printed
    config = load_config(book)
    assert config.build.tabs == ("pytorch", "jax")
    assert config.project.name == "my-book" and config.project.title == "My Book"
    assert config.ignored == ()  # every key known, nothing warned
    for fw in ("pytorch", "jax"):
        for device in ("cpu", "cuda"):
            copied = book / "requirements" / device / f"{fw}.txt"
            assert config.framework(fw).requirements(device) == copied
            assert copied.read_bytes() == SHIPPED[fw].requirements(device).read_bytes()
    assert ".envs/" in (book / ".gitignore").read_text().splitlines()
    assert "polybook" in (book / "requirements" / "polybook.txt").read_text()
    assert main(["--quiet", "--root", str(book), "check"]) == 0
    assert main(["--quiet", "--root", str(book), "build", "lib"]) == 0
    for module in ("torch", "jax"):
        assert "def ones(n):" in (book / "d2l" / f"{module}.py").read_text()


def test_new_refuses_a_folder_with_files_and_an_unknown_framework(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "my-book").mkdir()
    (tmp_path / "my-book" / "notes.txt").write_text("mine")
    assert new(tmp_path)[0] == 1
    assert "exists and is not an empty folder" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "my-book").iterdir()) == ["notes.txt"]
    assert main(["new", str(tmp_path / "other"), "--frameworks", "pytroch"]) == 1
    err = capsys.readouterr().err
    assert "--frameworks: unknown framework 'pytroch'" in err and "[polybook.new]" in err
    assert not (tmp_path / "other").exists()
    assert main(["new", str(tmp_path / "other"), "--gpu-runner", "a100"]) == 1
    assert "--gpu-runner: names the runner of a CI workflow" in capsys.readouterr().err


def test_the_github_workflow_passes_actionlint_and_actionlint_can_fail(tmp_path: Path) -> None:
    code, book = new(tmp_path, "--frameworks", "pytorch,mxnet", "--ci", "github")
    assert code == 0
    done = actionlint(book)
    assert done.returncode == 0, done.stdout + done.stderr
    workflow = (book / ".github" / "workflows" / "book.yml").read_text()
    assert "framework: [pytorch, mxnet]" in workflow
    assert "runs-on: ubuntu-latest" in workflow
    assert "uses: actions/cache@" in workflow and "hashFiles(format('requirements/*/{0}.txt'" in (
        workflow
    )
    assert "polybook build html --executor none" in workflow
    assert " ".join(DEBIAN_PACKAGES) in workflow
    assert "uses: actions/deploy-pages@" in workflow
    # The check is real: a misspelt input of a known action fails it.
    (book / ".github" / "workflows" / "book.yml").write_text(
        workflow.replace("merge-multiple: true", "merge-multiples: true")
    )
    assert actionlint(book).returncode == 1


def test_a_self_hosted_gpu_runner_executes_and_actionlint_knows_its_label(tmp_path: Path) -> None:
    code, book = new(tmp_path, "--ci", "github", "--gpu-runner", "a100")
    assert code == 0
    workflow = (book / ".github" / "workflows" / "book.yml").read_text()
    assert "runs-on: [self-hosted, a100]" in workflow
    done = actionlint(book)
    assert done.returncode == 0, done.stdout + done.stderr
    (book / ".github" / "actionlint.yaml").unlink()
    unknown = actionlint(book)
    assert unknown.returncode == 1 and 'label "a100" is unknown' in unknown.stdout


def test_executor_none_runs_nothing_and_names_the_command_that_executes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, book = new(tmp_path, "--frameworks", "jax")
    assert code == 0
    envs = tmp_path / "envs"
    text = (book / "config.ini").read_text().replace("[build]\n", f"[build]\nenvs_dir = {envs}\n")
    (book / "config.ini").write_text(text)
    capsys.readouterr()
    assert main(["--root", str(book), "build", "eval", "--executor", "none"]) == 1
    err = capsys.readouterr().err
    assert "chapter_intro/tensors.md [jax]: not executed" in err
    assert "`polybook build eval --tab jax` with the same cache executes it" in err
    assert "[polybook.exec.uncached]" in err
    assert not envs.exists()  # no environment was set up


def test_the_makefile_installs_the_tex_packages_the_pdf_stage_names() -> None:
    makefile = (REPO / "Makefile").read_text()
    start = makefile.index("PDF_PACKAGES :=")
    block = makefile[start : makefile.index("\npdf-deps:", start)]
    listed = block.removeprefix("PDF_PACKAGES :=").replace("\\\n", " ").split()
    assert tuple(listed) == DEBIAN_PACKAGES


def test_env_assets_without_npm_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PolybookError) as raised:
        install_assets(tmp_path / "node")
    assert "npm is not installed: install Node.js" in str(raised.value)
    assert "[polybook.env.assets]" in str(raised.value)
    assert not (tmp_path / "node").exists()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_env_assets_installs_mathjax_from_the_shipped_lock_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = install_assets(tmp_path / "node")
    assert (target / "node_modules" / "mathjax" / "es5" / "tex-chtml.js").is_file()
    assert assets_current(target)
    assert not list(tmp_path.glob(".node.partial-*"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm: current assets need none
    assert install_assets(target) == target


def _clone(folder: Path, origin: str) -> str:
    """A polybook source tree under git, with ``origin`` as its remote; its commit."""
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = 'polybook'\n")
    git = ["git", "-C", str(folder), "-c", "user.name=a", "-c", "user.email=a@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    if origin:
        subprocess.run([*git, "remote", "add", "origin", origin], check=True)
    done = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_a_clone_with_a_remote_is_pinned_by_its_url_and_commit(tmp_path: Path) -> None:
    commit = _clone(tmp_path / "https", "https://example.org/team/polybook.git")
    pinned = clone_requirement(tmp_path / "https")
    assert pinned == f"polybook @ git+https://example.org/team/polybook.git@{commit}"
    commit = _clone(tmp_path / "ssh", "git@example.org:team/polybook.git")
    pinned = clone_requirement(tmp_path / "ssh")  # scp-like, as pip spells it
    assert pinned == f"polybook @ git+ssh://git@example.org/team/polybook.git@{commit}"
    _clone(tmp_path / "local", "")
    assert clone_requirement(tmp_path / "local") == ""  # nothing another machine can fetch
    assert clone_requirement(tmp_path) == ""  # not a source tree at all


def test_the_new_books_requirement_never_names_an_unpublished_version(tmp_path: Path) -> None:
    code, book = new(tmp_path, "--frameworks", "pytorch")
    assert code == 0
    lines = (book / "requirements" / "polybook.txt").read_text().splitlines()
    wanted = [line for line in lines if line and not line.startswith("#")]
    assert len(wanted) == 1 and wanted[0].startswith("polybook")
    if wanted[0].startswith("polybook @ git+"):  # from a clone pip can fetch again
        assert wanted[0].rsplit("@", 1)[1] == clone_requirement(REPO).rsplit("@", 1)[1]
    else:  # pinned by version, which the index lacks: the file says what to put there
        assert "not on PyPI yet" in "\n".join(lines)


def _github_clone(folder: Path, origin: str) -> Path:
    """An empty git repository at ``folder`` whose ``origin`` is ``origin``."""
    folder.mkdir()
    subprocess.run(["git", "-C", str(folder), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", origin], check=True)
    return folder


def test_remotes_name_the_books_github_repository() -> None:
    for remote in (
        "git@github.com:alice/my-course.git",
        "https://github.com/alice/my-course",
        "https://github.com/alice/my-course.git\n",
        "ssh://git@github.com/alice/my-course.git",
    ):
        assert github_repository(remote) == "alice/my-course", remote
    assert github_repository("https://gitlab.com/alice/my-course.git") == ""


def test_a_book_in_a_github_clone_names_its_repository_and_publishes_its_notebooks(
    tmp_path: Path,
) -> None:
    book = _github_clone(tmp_path / "my-course", "git@github.com:alice/my-course.git")
    assert main(["new", str(book), "--ci", "github"]) == 0  # a fresh clone is empty enough
    config = load_config(book)
    assert config.project.repository == "alice/my-course"
    for platform in (config.colab, config.sagemaker):
        assert (platform.github_repo, platform.branch) == (("alice/my-course",), "notebooks")
    workflow = (book / ".github" / "workflows" / "book.yml").read_text()
    assert "contents: write" in workflow and '"HEAD:refs/heads/$BRANCH"' in workflow
    assert "BRANCH: notebooks" in workflow
    assert "name: notebooks\n          path: _build/notebooks" in workflow
    done = actionlint(book)
    assert done.returncode == 0, done.stdout + done.stderr
    # The author's own repository and branch stay theirs.
    text = (book / "config.ini").read_text() + "\n[colab]\ngithub_repo = bob/nb\n"
    (book / "config.ini").write_text(text + "\n[sagemaker]\nbranch = main\n")
    config = load_config(book)
    assert (config.colab.github_repo, config.colab.branch) == (("bob/nb",), "main")
    assert config.sagemaker.github_repo == ("alice/my-course",)
    assert config.sagemaker.branch == "main"
    text = (book / "config.ini").read_text()
    url = "repository = https://github.com/alice/my-course"
    (book / "config.ini").write_text(text.replace("repository = alice/my-course", url))
    with pytest.raises(PolybookError, match=r"config.ini:\d+: \[project\] repository: .* is not"):
        load_config(book)


@pytest.mark.slow
def test_each_section_opens_in_colab_and_sagemaker_from_the_books_own_repository(
    tmp_path: Path,
) -> None:
    book = _github_clone(tmp_path / "my-course", "https://github.com/alice/my-course.git")
    assert main(["new", str(book), "--ci", "github", "--frameworks", "pytorch,jax"]) == 0
    text = (book / "config.ini").read_text()
    text = text.replace("[build]\n", "[build]\neval_notebook = false\n")
    (book / "config.ini").write_text(text)
    root = ["--quiet", "--root", str(book), "build"]
    page = book / "_build" / "html" / "chapter_intro" / "tensors.html"

    def buttons() -> dict[str, str]:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        return {
            f"{a['class'][0]} {a['data-pb-follow']}": str(a["href"])
            for a in soup.select(".pb-downloads a")
        }

    assert main([*root, "html"]) == 0  # no notebooks published yet: no button opens them
    assert not [k for k in buttons() if k.startswith(("pb-colab", "pb-sagemaker"))]
    assert main([*root, "notebooks"]) == 0
    assert main([*root, "html"]) == 0
    found = buttons()
    for fw in ("pytorch", "jax"):
        assert found[f"pb-download {fw}"] == f"../_notebooks/{fw}/chapter_intro/tensors.ipynb"
        for kind, opens in (
            ("colab", "https://colab.research.google.com/github"),
            ("sagemaker", "https://studiolab.sagemaker.aws/import/github"),
        ):
            notebook = f"{fw}/{kind}/chapter_intro/tensors.ipynb"
            assert found[f"pb-{kind} {fw}"] == f"{opens}/alice/my-course/blob/notebooks/{notebook}"
            assert (book / "_build" / "notebooks" / notebook).is_file()  # what the branch holds


def test_the_weekly_compat_workflow_passes_actionlint(tmp_path: Path) -> None:
    code, book = new(tmp_path, "--frameworks", "pytorch,jax", "--ci", "github")
    assert code == 0
    weekly = book / ".github" / "workflows" / "compat.yml"
    text = weekly.read_text()
    assert "schedule:" in text and "cron:" in text
    assert "polybook compat --newly-failing _build/compat/newly-failing.md" in text
    assert "restore-keys: exec-pytorch-" in text and "restore-keys: exec-jax-" in text
    assert "gh issue edit" in text and "gh issue create" in text
    assert "uses: actions/deploy-pages@" in text
    book_workflow = (book / ".github" / "workflows" / "book.yml").read_text()
    assert "Restore the last check of `polybook compat`" in book_workflow
    done = actionlint(book)
    assert done.returncode == 0, done.stdout + done.stderr
    weekly.write_text(text.replace("restore-keys: compat-", "restore-key: compat-"))
    assert actionlint(book).returncode == 1
