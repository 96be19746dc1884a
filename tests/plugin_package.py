"""A tiny plugin package, as a third party would write it: an output (``polybook build
cellcount``) and an executor (``[build] executor = echo``, with its own section
``[executor-echo]``) declared by entry points."""

from __future__ import annotations

from pathlib import Path

PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "pbplugin"
version = "0.1"

[project.entry-points."polybook.outputs"]
cellcount = "pbplugin.output:OUTPUT"
{extra_outputs}
[project.entry-points."polybook.executors"]
echo = "pbplugin.registered:ECHO"
"""

OUTPUT = '''\
"""An output that counts each executed notebook's code cells and their outputs' text."""

from pathlib import Path

from polybook.output import Output


def _writes(layout, tabs):
    return [layout.output_dir("cellcount") / "counts.txt"]


def _build(made, config, reporter):
    lines = []
    for (path, framework), notebook in sorted(made.executed.report.executed.items()):
        code = [c for c in notebook.cells if c.cell_type == "code"]
        said = [o.get("text", "") for c in code for o in c.get("outputs", [])]
        lines.append(f"{path} [{framework}]: {len(code)} code cells; " + " ".join(said))
    target = config.layout.output_dir("cellcount") / "counts.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\\n".join(lines) + "\\n", encoding="utf-8")
    return True


OUTPUT = Output("cellcount", "each notebook's code cells, counted", _writes, build=_build)
'''

PRINTVIEW = '''\
"""A print view of the book per framework, which the site holds in ``_print/`` and links
from every page: nothing of polybook is told of it but its entry point."""

from polybook.output import Output, SiteLink


def _page(layout, framework):
    return layout.book_file("printview", framework, ".html")


def _writes(layout, tabs):
    return [_page(layout, fw) for fw in tabs]


def _built(layout, tabs):
    return {fw: {"": _page(layout, fw)} for fw in tabs if _page(layout, fw).is_file()}


def _build(made, config, reporter):
    for fw in made.library.tabs:
        pages = sorted(doc.path for doc in made.library.parsed.documents)
        _page(config.layout, fw).parent.mkdir(parents=True, exist_ok=True)
        _page(config.layout, fw).write_text(f"<p>{fw}: {', '.join(pages)}</p>", encoding="utf-8")
    return True


OUTPUT = Output(
    "printview",
    "the book on one page per framework, to print",
    _writes,
    executes=False,
    build=_build,
    per_framework=True,
    site=SiteLink("_print", "print view", _built),
)
'''

REGISTERED = """\
from dataclasses import dataclass
from typing import ClassVar

from polybook.config.executors import Registered
from polybook.config.schema.key import key


@dataclass(frozen=True)
class EchoSection:
    SECTION: ClassVar[str] = "executor-echo"

    word: str = key("str", "echoed", "what each cell says it was", read_by=("eval",))
    times: int = key("int", 1, "how many times it says so", minimum=1, read_by=("eval",))


ECHO = Registered(
    "pbplugin.executor", "hands each notebook back, its cells saying so", section=EchoSection
)
"""

EXECUTOR = '''\
"""An executor that runs nothing: each code cell is handed back with an output saying so."""

from concurrent.futures import Future

from polybook.execution.executors.protocol import ExecutorSetup
from polybook.execution.jobs import Inventory, JobResult


class Echo:
    on_this_host = False

    def __init__(self, text):
        self.text = text

    def expect(self, jobs):
        pass

    def submit(self, job):
        notebook = job.notebook
        for cell in notebook.cells:
            if cell.cell_type == "code":
                output = {"output_type": "stream", "name": "stdout", "text": self.text}
                cell["outputs"] = [output]
        done = Future()
        done.set_result(JobResult(job, "ok", notebook=notebook, seconds=0.1))
        return done

    def cancel(self):
        pass

    def shutdown(self):
        pass


def create(book, build, inventory, settings):
    text = " ".join([f"{settings.word} by pbplugin"] * settings.times)
    return ExecutorSetup(Echo(text), inventory or Inventory(), 1)
'''


def write_plugin(root: Path, extra_outputs: str = "") -> Path:
    """The plugin's source tree at ``root`` (``extra_outputs``: more lines of its
    ``polybook.outputs`` entry points)."""
    package = root / "pbplugin"
    package.mkdir(parents=True)
    pyproject = PYPROJECT.format(extra_outputs=extra_outputs)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "output.py").write_text(OUTPUT, encoding="utf-8")
    (package / "printview.py").write_text(PRINTVIEW, encoding="utf-8")
    (package / "registered.py").write_text(REGISTERED, encoding="utf-8")
    (package / "executor.py").write_text(EXECUTOR, encoding="utf-8")
    return root


def write_installed(site: Path, entry_points: str) -> None:
    """The plugin as an installer leaves it in ``site`` (its modules and its dist-info),
    with ``entry_points`` as its ``entry_points.txt``."""
    source = write_plugin(site / "pbplugin-src")
    (source / "pbplugin").rename(site / "pbplugin")
    info = site / "pbplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pbplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
