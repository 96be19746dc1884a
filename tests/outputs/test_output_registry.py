"""An output is one object (``polybook.output.Output``): one added to the tuple of outputs
is a choice of ``polybook build``, built by the pipeline, and checked by the no-op check on
what it says it writes and reads, with no other module told of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import BookConfig, load_config
from polybook.diagnostics import Reporter
from polybook.layout import Layout
from polybook.output import Made, Output, Run
from polybook.pipeline.graph import run_build
from polybook.pipeline.registry import OUTPUTS
from polybook.pipeline.request import BuildRequest
from polybook.pipeline.stages import DIST, EVAL, LIB
from tools.command_table import with_outputs

from ..books import index_page, write_book

REPO = Path(__file__).resolve().parents[2]

PAGE = "# Page\n\n```{.python .input}\ndef shared(x):  #@save\n    return x\n```\n"
BOOK = {"index.md": index_page("Book", ["chap/page"]), "chap/page.md": PAGE, "note.txt": "a"}
CONFIG = "[build]\ntabs = pytorch, jax\neval_notebook = false\n"


def _tally_writes(layout: Layout, tabs: tuple[str, ...]) -> list[Path]:
    return [layout.book_file("tally", fw, ".txt") for fw in tabs]


def _tally_reads(config: BookConfig) -> list[Path]:
    return [config.root / "note.txt"]


def _tally(made: Made, config: BookConfig, reporter: Reporter) -> bool:
    """Per framework: its notebooks, and its saved blocks' first lines."""
    for fw in made.library.tabs:
        notebooks = sorted(page for page, tab in made.executed.notebooks if tab == fw)
        saved = [block.code.splitlines()[0] for block in made.library.blocks[fw]]
        path = config.layout.book_file("tally", fw, ".txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join([*notebooks, *saved]) + "\n", encoding="utf-8")
    return True


TALLY = Output(
    "tally",
    "the notebooks and saved code per framework",
    _tally_writes,
    build=_tally,
    reads=_tally_reads,
)


def _build(root: Path, outputs: tuple[Output, ...] = (*OUTPUTS, TALLY)) -> int:
    return main(["--root", str(root), "build", "tally"], outputs)


def test_an_output_added_to_the_tuple_is_a_choice_built_and_checked_for_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    root = write_book(tmp_path / "book", BOOK, CONFIG)
    with pytest.raises(SystemExit):  # the shipped outputs alone: no such choice
        _build(root, OUTPUTS)
    assert "invalid choice: 'tally'" in capsys.readouterr().err
    assert _build(root) == 0
    written = root / "_build" / "tally" / "book-pytorch.txt"
    listed = "chap/page.md\nindex.md\ndef shared(x):\n"
    assert written.read_text(encoding="utf-8") == listed
    assert (root / "_build" / "tally" / "book-jax.txt").is_file()
    caplog.clear()
    assert _build(root) == 0
    assert "nothing changed since the last build" in caplog.messages
    written.unlink()  # what it says it writes: lost, so it runs again
    caplog.clear()
    assert _build(root) == 0
    assert "nothing changed since the last build" not in caplog.messages
    assert written.is_file()
    (root / "note.txt").write_text("b", encoding="utf-8")  # what it says it reads changed
    caplog.clear()
    assert _build(root) == 0
    assert "nothing changed since the last build" not in caplog.messages


@dataclass
class _Started:
    """A run begun before the stages, recording what happened to it."""

    keeper: object
    events: list[str] = field(default_factory=list)

    def __call__(self, made: Made, config: BookConfig, reporter: Reporter) -> bool:
        self.events.append(f"built {sorted(made.library.blocks)}")
        return False  # its errors stop the build

    def close(self) -> None:
        self.events.append("closed")


def test_an_output_begins_before_the_stages_with_what_serve_keeps_and_closes_after(
    tmp_path: Path,
) -> None:
    root = write_book(tmp_path / "book", BOOK, CONFIG)
    runs: list[_Started] = []

    def start(config: BookConfig, keeper: object) -> Run:
        runs.append(_Started(keeper, ["started"]))
        return runs[-1]

    early = Output("early", "a run begun early", _tally_writes, executes=False, start=start)
    config = load_config(root)
    summary = run_build(BuildRequest(early, config.build.tabs), config, Reporter(), "kept")
    assert [(run.keeper, run.events) for run in runs] == [
        ("kept", ["started", "built ['jax', 'pytorch']", "closed"])
    ]
    assert summary.stopped == "early"


def test_the_shipped_outputs_have_one_name_each_and_a_package_that_exports_them() -> None:
    names = [output.name for output in OUTPUTS]
    assert len(set(names)) == len(names)
    packages = sorted(p.parent.name for p in (REPO / "polybook").glob("*/output.py"))
    exported = [import_module(f"polybook.{package}.output").OUTPUT for package in packages]
    assert all(output in OUTPUTS for output in exported)  # each output package is listed
    stages = [LIB, DIST, EVAL]  # the outputs of the pipeline's own stages
    assert sorted(names) == sorted(o.name for o in [*stages, *exported])


def test_the_readme_table_of_outputs_is_the_registry() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert with_outputs(readme) == readme, "run .envs/tool/bin/python -m tools.command_table"
    for output in OUTPUTS:
        assert f"| `polybook build {output.name}` | {output.help} |" in readme
    extra = Output("markdown", "plain Markdown pages", _tally_writes)
    regenerated = with_outputs(readme, (*OUTPUTS, extra))
    assert "| | `polybook build markdown` | plain Markdown pages |" in regenerated
