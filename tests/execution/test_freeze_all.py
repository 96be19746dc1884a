"""``[build] freeze = all``: every notebook's run committed in ``_freeze/``, a book that
renders from it with no framework environment, re-freezes that change no byte, and the gate
tiered by what the host can run."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.execution.jobs import Inventory
from polybook.execution.plan import ADOPTED
from polybook.execution.stage import build_eval
from polybook.layout import ENVS_VARIABLE
from polybook.pipeline.execution import BookEnvironments, execution

from ..books import chapter_book, code, evaluate, libraries, ran
from .test_freeze import GPU_PAGE, build_html, html

pytestmark = pytest.mark.slow

PLAIN = code("print(6 * 7)")
RESULT = code("6 * 9")
# A page that needs two GPUs: a one-GPU host runs it with that cell badged.
TWO_GPUS = code("#@requires gpus=2", "print('on two GPUs')")
# A framework's log line, dropped from what a build shows.
NOISY = code("import sys", "print('NOISE: a log line', file=sys.stderr)", "print('kept')")
NOISE = "\n[framework-pytorch]\noutput_noise = ^NOISE\n"


def freeze_all(root: Path) -> int:
    return main(["--quiet", "--root", str(root), "freeze", "--all"])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def fresh_copy(root: Path, target: Path) -> Path:
    """A clone of ``root``: its sources and ``_freeze/``, nothing built."""
    return Path(shutil.copytree(root, target, ignore=shutil.ignore_patterns("_build")))


@pytest.fixture(scope="module")
def frozen_all(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A book run on a (simulated) GPU host, then ``polybook freeze --all``."""
    pages = {"gpus": GPU_PAGE, "plain": PLAIN, "noisy": NOISY, "result": RESULT}
    root = chapter_book(tmp_path_factory.mktemp("all") / "book", pages, "freeze = all\n")
    assert ran(evaluate(root, Inventory(gpus=1))) == {f"chap/{p}.md" for p in pages}
    assert freeze_all(root) == 0
    return root


def test_freeze_all_stores_every_notebook_without_volatile_fields(frozen_all: Path) -> None:
    folder = frozen_all / "_freeze/pytorch/chap"
    names = ["gpus.json", "noisy.json", "plain.json", "result.json"]
    assert sorted(p.name for p in folder.iterdir()) == names
    plain = json.loads((folder / "plain.json").read_text())
    assert [o["text"] for o in plain["cells"][0]["outputs"]] == ["42\n"]
    assert "seconds" not in plain["run"] and "execution_count" not in plain["cells"][0]
    result = json.loads((folder / "result.json").read_text())["cells"][0]["outputs"]
    assert result == [
        {"data": {"text/plain": "54"}, "metadata": {}, "output_type": "execute_result"}
    ]


def test_a_fresh_copy_renders_with_no_framework_environment(
    frozen_all: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    clone = fresh_copy(frozen_all, tmp_path / "clone")
    envs = tmp_path / "envs"  # where no framework was ever set up
    envs.mkdir()
    monkeypatch.setenv(ENVS_VARIABLE, str(envs))
    report = tmp_path / "report.json"
    with caplog.at_level(logging.INFO, logger="polybook"):
        assert main(["--root", str(clone), "build", "html", "--report", str(report)]) == 0
    assert json.loads(report.read_text())["ran"] == []
    assert not [p.name for p in envs.iterdir() if p.name.startswith("pytorch")]
    assert "no framework environment is set up" in caplog.text
    assert "42" in html(clone, "chap/plain.html").get_text()
    assert "54" in html(clone, "chap/result.html").get_text()
    assert "cuda:0" in html(clone, "chap/gpus.html").get_text()
    # An edit of one page's prose (as ``polybook serve`` builds it, in one process): the
    # other pages' entries are kept as read, each with its outputs adopted once.
    misses = ADOPTED.misses
    page = clone / "chap" / "result.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more sentence.\n", "utf-8")
    assert main(["--root", str(clone), "build", "html"]) == 0
    assert ADOPTED.misses - misses == 1


def test_a_refreeze_of_what_a_build_showed_changes_no_byte(
    frozen_all: Path, tmp_path: Path
) -> None:
    clone = fresh_copy(frozen_all, tmp_path / "clone")
    before = snapshot(clone / "_freeze")
    assert "pytorch/chap/plain.json" in before  # a notebook every host makes
    build_html(clone)
    assert freeze_all(clone) == 0
    assert snapshot(clone / "_freeze") == before


def test_a_refreeze_of_a_new_run_of_the_same_code_changes_no_byte(tmp_path: Path) -> None:
    root = chapter_book(tmp_path / "book", {"plain": PLAIN}, "freeze = all\n")
    evaluate(root)
    assert freeze_all(root) == 0
    before = snapshot(root / "_freeze")
    assert main(["--quiet", "--root", str(root), "cache", "clear"]) == 0
    aside = (root / "_freeze").rename(root / "aside")
    assert ran(evaluate(root)) == {"chap/plain.md"}  # run again: another date and duration
    aside.rename(root / "_freeze")
    assert freeze_all(root) == 0
    assert snapshot(root / "_freeze") == before


def test_an_entry_stored_with_noise_a_build_hides_is_not_rewritten(
    frozen_all: Path, tmp_path: Path
) -> None:
    """Frozen before its framework declared the line noise: builds drop it when they show
    the entry; a re-freeze of what they showed leaves the entry as committed."""
    entry = json.loads((frozen_all / "_freeze/pytorch/chap/noisy.json").read_text())
    assert sorted(o["text"] for o in entry["cells"][0]["outputs"]) == [
        "NOISE: a log line\n",
        "kept\n",
    ]
    clone = fresh_copy(frozen_all, tmp_path / "clone")
    config = clone / "config.ini"
    config.write_text(config.read_text() + NOISE)
    before = snapshot(clone / "_freeze")
    build_html(clone)
    shown = [o.get_text(strip=True) for o in html(clone, "chap/noisy.html").select("div.pb-output")]
    assert shown == ["kept"]
    assert freeze_all(clone) == 0
    assert snapshot(clone / "_freeze") == before


def test_a_new_run_is_stored_as_builds_show_it(tmp_path: Path) -> None:
    root = chapter_book(tmp_path / "book", {"noisy": NOISY}, "freeze = all\n", NOISE)
    evaluate(root)
    assert freeze_all(root) == 0
    entry = json.loads((root / "_freeze/pytorch/chap/noisy.json").read_text())
    assert [o["text"] for o in entry["cells"][0]["outputs"]] == ["kept\n"]


@pytest.fixture(scope="module")
def two_gpu_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Frozen on a two-GPU host, then its GPU page and its plain page edited."""
    pages = {"two": TWO_GPUS, "plain": PLAIN}
    root = chapter_book(tmp_path_factory.mktemp("two") / "book", pages, "freeze = all\n")
    evaluate(root, Inventory(gpus=2))
    assert freeze_all(root) == 0
    for name, old, new in (("two", "'on two GPUs'", "'on two GPUs', 2"), ("plain", "6", "7")):
        page = root / f"chap/{name}.md"
        page.write_text(page.read_text().replace(old, new))
    return root


def gate(root: Path, gpus: int) -> tuple[set[str], list[str]]:
    """The pages a host with ``gpus`` GPUs runs, and the warnings of its build."""
    config = load_config(root)
    reporter = Reporter(quiet=True)
    notebooks, found = libraries(root, reporter)
    environments = BookEnvironments(config)
    inventory = Inventory(gpus=gpus)
    report = build_eval(
        execution(config), environments, notebooks, found, reporter, None, inventory
    )
    return ran(report), [str(d) for d in reporter.warnings]


def test_a_stale_page_beyond_the_host_is_named_not_run_nor_shown(
    two_gpu_book: Path, tmp_path: Path
) -> None:
    clone = fresh_copy(two_gpu_book, tmp_path / "clone")
    ran_here, warnings = gate(clone, 1)
    assert ran_here == {"chap/plain.md"}  # stale, and this host runs it: run again
    beyond = [w for w in warnings if "freeze.host" in w]
    assert beyond == [
        "chap/two.md [pytorch]: not run and shown without outputs: its frozen outputs are"
        " stale and it needs 2 GPUs, this host has 1 GPU; a host with 2 GPUs refreshes it"
        " (`polybook build eval chap/two.md`, then `polybook freeze chap/two.md`)"
        " [polybook.freeze.host]"
    ]
    # The site: the build goes on, the stale page shows no outputs.
    assert build_html(clone)["failed"] == 0
    assert "on two GPUs" not in " ".join(
        o.get_text() for o in html(clone, "chap/two.html").select("div.pb-output")
    )
    # A two-GPU host runs both.
    assert "chap/two.md" in gate(clone, 2)[0]


def test_without_an_executor_a_stale_page_this_host_runs_is_an_error(
    two_gpu_book: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clone = fresh_copy(two_gpu_book, tmp_path / "clone")
    with caplog.at_level(logging.WARNING, logger="polybook"):
        code = main(["--quiet", "--root", str(clone), "build", "html", "--executor", "none"])
    assert code == 1
    assert "chap/plain.md [pytorch]: not executed" in caplog.text
    assert "chap/two.md [pytorch]: not run and shown without outputs" in caplog.text


def test_status_lists_the_stale_pages_and_the_host_that_refreshes_each(
    two_gpu_book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quiet", "--root", str(two_gpu_book), "freeze", "--status"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "0 current, 2 stale, 0 missing (_freeze/)",
        "stale  pytorch  chap/plain.md  any host (a CPU host)",
        "stale  pytorch  chap/two.md    a host with 2 GPUs",
    ]


def test_the_github_workflow_renders_the_site_from_the_committed_outputs_alone() -> None:
    from polybook.starter.github import workflow

    text = workflow(("pytorch", "jax"))
    render = text[text.index("\n  render:\n") : text.index("\n  build:\n")]
    assert "needs:" not in render  # no framework job before it
    assert "run: polybook build html --executor none" in render
    assert "env setup" not in render and "build eval" not in render
