"""The one place tests make books: copies of the fixture books and of the shipped book, books
written from a few pages, and the in-process build steps tests share. Test modules import
from here (and from the other helpers: ``browser``, ``golden``), never from each other."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import logging
import os
import re
import shutil
import venv
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from polybook.commands.cli import main
from polybook.config import BookConfig, load_config
from polybook.diagnostics import Reporter
from polybook.environments import venvs
from polybook.execution.jobs import Inventory
from polybook.execution.plan import EvalReport
from polybook.layout import Layout
from polybook.library.extract import extract_libraries
from polybook.library.model import SavedBlock
from polybook.library.stage import write_libraries
from polybook.meta import (
    CellMeta,
    NotebookMeta,
    RunInfo,
    notebook_meta,
    set_cell_meta,
    set_notebook_meta,
)
from polybook.nb import Notebooks, new_code_cell, new_notebook, writes
from polybook.source.book import ParsedBook, load_book
from polybook.source.slide_marks import read_slide_marks
from polybook.source.split import split_book

from .environments import link_environments

if TYPE_CHECKING:
    from nbformat import NotebookNode

REPO = Path(__file__).resolve().parent.parent  # polybook's checkout, the shipped book
FIXTURES = Path(__file__).parent / "fixtures"
FENCE = "`" * 3
SHIPPED_FILES = ("config.ini", "index.md", "d2l.bib")
SHIPPED_FOLDERS = ("chapter_builders-guide", "img", "d2l", "static")
ONE_TAB = "[build]\ntabs = pytorch\n"


def load_parsed(config: BookConfig, reporter: Reporter) -> ParsedBook:
    """The pages of ``config``'s book, parsed in book order (as the source stage reads them)."""
    return load_book(config.book, config.build, reporter)


def copy_fixture(target: Path, name: str = "book") -> Path:
    """A copy of ``tests/fixtures/<name>`` (without a build folder) at ``target``."""
    shutil.copytree(FIXTURES / name, target, ignore=shutil.ignore_patterns("_build"))
    return target


def copy_shipped(
    target: Path,
    folders: tuple[str, ...] = SHIPPED_FOLDERS,
    files: tuple[str, ...] = SHIPPED_FILES,
    link_envs: bool = False,
) -> Path:
    """The book this repository ships (``folders`` and ``files`` of it) at ``target``.
    ``link_envs``: its ``envs_dir`` is a folder of links to polybook's framework
    environments (:func:`link_environments`), so that kernels it installs stay with the
    copy."""
    target.mkdir(parents=True, exist_ok=True)
    for name in files:
        shutil.copy2(REPO / name, target / name)
    for name in folders:
        if (REPO / name).is_dir():
            shutil.copytree(
                REPO / name, target / name, ignore=shutil.ignore_patterns("__pycache__")
            )
    if link_envs:
        envs = link_environments(target.parent / "envs")
        config = target / "config.ini"
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("[build]\n", f"[build]\nenvs_dir = {envs}\n", 1))
    return target


def link_cache(source: Path, target: Path) -> None:
    """A copy of an execution cache: hard links where the file system allows them."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if source.is_dir():
        shutil.copytree(source, target, copy_function=link)


def shipped_with_cache(target: Path) -> Path:
    """The shipped book at ``target``, its execution cache starting as a copy of the
    repository's (nothing runs again where that one is warm)."""
    copy_shipped(target)
    cache = Path("_build") / "cache" / "exec"
    link_cache(REPO / cache, target / cache)
    return target


def looks_installed(env: venvs.Environment) -> venvs.Environment:
    """``env`` made a venv that looks installed from its pins (this Python's pip, its stamp)
    but holds none of them: no framework, no ipykernel, no kernelspec yet."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env.path)
    (site,) = env.path.glob("lib/python*/site-packages")
    pip = importlib.util.find_spec("pip")
    assert pip is not None and pip.origin is not None
    (site / "pip").symlink_to(Path(pip.origin).parent)
    (env.path / venvs.STAMP).write_text(env.requirements_hash() + "\n", encoding="utf-8")
    return env


def with_build(config: BookConfig, **changes: Any) -> BookConfig:
    """``config`` with keys of ``[build]`` changed."""
    return replace(config, build=replace(config.build, **changes))


def write_book(root: Path, files: Mapping[str, str | bytes], config: str | None = ONE_TAB) -> Path:
    """A book at ``root`` made of ``files`` (path -> text or bytes) and ``config`` as its
    ``config.ini`` (None: none, or the one ``files`` holds)."""
    root.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / "config.ini").write_text(config, encoding="utf-8")
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


def index_page(title: str, entries: list[str], maxdepth: int | None = None) -> str:
    """An ``index.md`` with a toc of ``entries``."""
    options = f":maxdepth: {maxdepth}\n\n" if maxdepth is not None else ""
    toc = "\n".join(entries)
    return f"# {title}\n\n{FENCE}toc\n{options}{toc}\n{FENCE}\n"


def pages_book(
    root: Path,
    pages: Mapping[str, str],
    config: str = ONE_TAB,
    title: str = "Book",
    folder: str = "",
    maxdepth: int | None = None,
) -> Path:
    """A book of ``pages`` (name -> body below its ``# name`` title) in ``folder``, listed in
    order by the toc of an ``index.md`` titled ``title``."""
    names = [f"{folder}/{name}" if folder else name for name in pages]
    files = {"index.md": index_page(title, names, maxdepth)}
    files |= {f"{n}.md": f"# {b}\n\n{pages[b]}" for n, b in zip(names, pages, strict=True)}
    return write_book(root, files, config)


def cells_book(root: Path, cells: Mapping[str, str]) -> Path:
    """A one-framework book (two jobs at once) whose pages are one code cell each."""
    bodies = {name: f"{FENCE}{{.python .input}}\n{c}\n{FENCE}\n" for name, c in cells.items()}
    return pages_book(root, bodies, "[build]\ntabs = pytorch\njobs = 2\n", "Faults")


def chapter_book(root: Path, pages: Mapping[str, str], build: str = "", extra: str = "") -> Path:
    """A one-framework book (PyTorch, two jobs at once) with ``pages`` under ``chap/``;
    ``build`` adds keys to ``[build]``, ``extra`` sections after it."""
    config = f"[project]\nname = gpu\ntitle = GPU\n\n[build]\ntabs = pytorch\njobs = 2\n{build}"
    return pages_book(root, pages, config + extra, "A GPU book", "chap", maxdepth=2)


def code(*lines: str) -> str:
    """A code cell of ``lines``, and the blank line after it."""
    return f"{FENCE}{{.python .input}}\n" + "\n".join(lines) + f"\n{FENCE}\n\n"


def build(root: Path, target: str = "html", *options: str) -> int:
    """``polybook --quiet --root ROOT build TARGET OPTIONS…``, in this process."""
    return main(["--quiet", "--root", str(root), "build", target, *options])


def libraries(root: Path, reporter: Reporter) -> tuple[Notebooks, dict[str, list[SavedBlock]]]:
    """The book's notebooks, and its libraries, written as a build writes them."""
    config = load_config(root)
    book = load_book(config.book, config.build, reporter)
    notebooks = split_book(book, config.build.tabs, reporter)
    found = extract_libraries(notebooks, reporter)
    return notebooks, write_libraries(config.book, config.library, found, reporter)


def evaluate(root: Path, inventory: Inventory | None = None) -> EvalReport:
    """Execute the book's notebooks in this process (the execute stage alone)."""
    from polybook.execution.stage import build_eval
    from polybook.pipeline.execution import BookEnvironments, execution

    config = load_config(root)
    reporter = Reporter()
    notebooks, found = libraries(root, reporter)
    envs = BookEnvironments(config)
    report = build_eval(execution(config), envs, notebooks, found, reporter, inventory=inventory)
    assert not reporter.errors, reporter.errors
    return report


def ran(report: EvalReport) -> set[str]:
    """The pages whose notebooks ran (not taken from the cache)."""
    return {path for path, _, _ in report.ran}


def executed_notebook(
    page: str, framework: str, cells: list[tuple[str, list[dict[str, Any]]]], version: str = ""
) -> NotebookNode:
    """A notebook of ``page`` as a build leaves it executed: its code cells (source and
    outputs, as nbformat writes them), cell N on the page's line 10 N, and the run's record
    (``version``: the framework's, ``numpy 2.4.6``)."""
    import nbformat

    nb = new_notebook()
    for number, (source, outputs) in enumerate(cells, start=1):
        cell = new_code_cell(source, f"cell-{number}")
        cell.outputs = [nbformat.from_dict(o) for o in outputs]  # type: ignore[no-untyped-call]
        cell.execution_count = number
        set_cell_meta(cell, CellMeta(line=10 * number))
        nb.cells.append(cell)
    run = RunInfo(framework_version=version, date="2026-11-01T10:00:00Z", device_class="cpu")
    set_notebook_meta(nb, NotebookMeta(page, framework, run))
    return nb


def put_executed(root: Path, nb: NotebookNode) -> Path:
    """Write ``nb`` where the book's build keeps its executed notebook, ``_build/eval``."""
    meta = notebook_meta(nb)
    path = Layout(root).executed(meta.source, meta.framework)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(writes(nb), encoding="utf-8")
    return path


def drawn_png(end: int, size: tuple[int, int] = (200, 100), level: int = 6) -> bytes:
    """A PNG plot: a blue line on white from mid-height to height ``end``, compressed at
    ``level`` (the same picture at another level is other bytes)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).line((10, size[1] // 2, size[0] - 10, end), fill="blue", width=2)
    data = io.BytesIO()
    image.save(data, format="PNG", compress_level=level)
    return data.getvalue()


def cache_entries(root: Path) -> list[Path]:
    """The execution cache's entries."""
    return sorted((root / "_build" / "cache" / "exec").rglob("*.ipynb"))


def processes_in(folder: Path) -> list[int]:
    """The processes whose working directory is inside ``folder`` (kernels of its book)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cwd = os.readlink(proc / "cwd")
            except OSError:
                continue
            if cwd.startswith(str(folder)):
                found.append(int(proc.name))
    return found


class Collect(logging.Handler):
    """The messages logged while it is installed (``logging.getLogger("polybook")``)."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


LIB_FILES = {"d2l/torch.py", "d2l/mxnet.py", "d2l/jax.py", "d2l/tensorflow.py"}


def tree_digest(root: Path) -> dict[str, str]:
    """Hash of every source file (build outputs and generated libraries left out)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and "_build" not in p.parts
        and p.relative_to(root).as_posix() not in LIB_FILES
    }


@dataclass(frozen=True)
class Built:
    """The fixture book after ``polybook build html`` in the four frameworks' kernels."""

    root: Path
    before: dict[str, str]  # its sources' hashes before the build
    code: int  # the command's exit status
    warnings: list[str]  # what the build logged


def headings(page: Path) -> tuple[str, list[str]]:
    """A page's title and its ``##`` headings, outside code, as the book shows them (slide
    marks read out)."""
    title, subs, fenced = "", [], False
    for raw in page.read_text(encoding="utf-8").splitlines():
        line = read_slide_marks(raw, 1, page.name).book
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("# ") and not title:
            title = line[2:].strip()
        elif not fenced and line.startswith("## "):
            subs.append(line[3:].strip())
    return title, subs


def made_wheel(folder: Path, name: str, version: str, files: Mapping[str, str]) -> Path:
    """A wheel of distribution ``name`` at ``version`` holding ``files`` (path -> text), with
    the metadata pip reads, in ``folder``."""
    stem = re.sub(r"[-_.]+", "_", name).lower()
    info = f"{stem}-{version}.dist-info"
    contents = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for member, text in contents.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.append(f"{member},sha256={digest.decode()},{len(data)}")
    contents[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for member, text in contents.items():
            archive.writestr(member, text)
    return wheel


def simple_index(folder: Path, files: list[Path]) -> str:
    """A package index (PEP 503) in ``folder`` offering ``files`` (wheels, sdists); its URL."""
    by_name: dict[str, list[Path]] = {}
    for path in files:
        name = re.sub(r"[-_.]+", "-", path.name.split("-")[0]).lower()
        by_name.setdefault(name, []).append(path)
    for name, paths in by_name.items():
        page = folder / name / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        links = "".join(f'<a href="{p.resolve().as_uri()}">{p.name}</a>\n' for p in paths)
        page.write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
    return folder.resolve().as_uri() + "/"
