"""``make bench``: build-time figures of the embedded book, then of a synthetic 200-page
book (``benchmarks/make_book.py``), then of ``polybook diff`` on a synthetic build of as many
pages (``tools/bench_drift.py``), then of setting the environments up, by uv and by pip, and
of a fresh clone's ``make html`` (``tools/bench_envs.py``), then of the Markdown parse of
d2l-en (``D2L_EN``, ``tools/bench_parse.py``), each measured in one run
(``--only SECTION`` for one alone; ``book`` and ``drift`` execute nothing). The embedded
book's site is also weighed and timed in Chromium (``tools/bench_reader.py``; ``--only
reader`` for the site ``make html`` built).

Works on temporary copies (never the repository) with a fresh cache.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from tools.bench_common import REPO, copy_book, show
from tools.bench_envs import clone_figures, environment_figures
from tools.bench_reader import reader_rows
from tools.bench_runs import Run, build, serve_latency

BOOK_PAGES = 200  # the synthetic book's (benchmarks/make_book.py)


def edit_prose(root: Path) -> tuple[str, str]:
    """Append a sentence to the first paragraph after the title of the first section."""
    page = sorted(root.glob("chapter_*/*.md"))[1]
    lines = page.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if i > 2 and line and line[0].isalpha())
    marker = "This sentence was added by the benchmark."
    lines[index] += f" {marker}"
    page.write_text("\n".join(lines) + "\n")
    return page.relative_to(root).with_suffix(".html").as_posix(), marker


def edit_saved(root: Path, line: str, framework: str = "pytorch") -> tuple[str, str]:
    """Insert ``line`` at the top of the last single-framework saved function of the
    toolkit; returns the page and the function's name."""
    page = root / "chapter_builders-guide" / "toolkit.md"
    lines = page.read_text().splitlines()
    tab = None
    target = None
    for i, text in enumerate(lines):
        if text.startswith("%%tab"):
            tab = text.removeprefix("%%tab").strip()
        if tab == framework and text.startswith("def ") and text.endswith("#@save"):
            target = i
    if target is None:
        raise SystemExit("bench: no saved function to edit")
    lines.insert(target + 1, line)
    page.write_text("\n".join(lines) + "\n")
    name = lines[target].removeprefix("def ").split("(")[0]
    return page.relative_to(root).as_posix(), name


@dataclass
class Rebuilds:
    """Per saved name: the notebooks a change to it re-executes, by either rule."""

    today: dict[tuple[str, str], int]
    precise: dict[tuple[str, str], int]

    def row(self, rule: dict[tuple[str, str], int]) -> str:
        values = list(rule.values())
        worst = max(rule, key=lambda k: rule[k])
        mean = sum(values) / len(values)
        return f"mean {mean:.2f}, worst {rule[worst]} ({worst[1]} [{worst[0]}])"


def rebuilds(root: Path) -> Rebuilds:
    """For each saved name, the notebooks whose key a change to its code changes (its own
    page always: its cell changed), under today's rule and the precise one."""
    from polybook.config import load_config
    from polybook.diagnostics import Reporter
    from polybook.library.extract import extract_libraries
    from polybook.library.usage import LibraryUsage, notebook_reads
    from polybook.source.book import load_book
    from polybook.source.split import split_book

    config = load_config(root)
    reporter = Reporter()
    notebooks = split_book(
        load_book(config.book, config.build, reporter), config.build.tabs, reporter
    )
    today: dict[tuple[str, str], int] = {}
    precise: dict[tuple[str, str], int] = {}
    for fw, blocks in extract_libraries(notebooks, reporter).items():
        lib_file = config.library_for(fw).lib_file
        pages = notebooks[fw]
        runnable = [
            i for i, (_, nb) in enumerate(pages) if any(c.cell_type == "code" for c in nb.cells)
        ]
        reads = {
            i: notebook_reads(pages[i][1], LibraryUsage([], lib_file).module) for i in runnable
        }
        usage = LibraryUsage(blocks, lib_file)
        before = {i: usage.digest_for(reads[i]) for i in runnable}
        for k, block in enumerate(blocks):
            info = usage.infos[k]
            if not info.defines or all(
                isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.parse(block.code).body
            ):
                continue
            owner = "".join(f"{c}." for c in sorted(info.extends))
            name = owner + ", ".join(sorted(info.defines))
            edited = LibraryUsage(
                [*blocks[:k], replace(block, code=block.code + "\npass"), *blocks[k + 1 :]],
                lib_file,
            )
            changed = {i for i in runnable if edited.digest_for(reads[i]) != before[i]}
            precise[(fw, name)] = len(changed | {block.notebook})
            today[(fw, name)] = sum(1 for i in runnable if i >= block.notebook)
    return Rebuilds(today, precise)


def cell_seconds(root: Path) -> dict[str, float]:
    """Per framework, the time its cells ran in the last build, as the executed notebooks
    record it (Jupyter's ``execute_input`` to ``execute_reply`` of each cell)."""
    from datetime import datetime

    from polybook.nb import reads

    found: dict[str, float] = {}
    for path in (root / "_build" / "eval").glob("*/**/*.ipynb"):
        fw = path.relative_to(root / "_build" / "eval").parts[0]
        for cell in reads(path.read_text(encoding="utf-8")).cells:
            stamps = cell.get("metadata", {}).get("execution", {})
            if "iopub.execute_input" in stamps and "shell.execute_reply" in stamps:
                begin = datetime.fromisoformat(stamps["iopub.execute_input"])
                end = datetime.fromisoformat(stamps["shell.execute_reply"])
                found[fw] = found.get(fw, 0.0) + (end - begin).total_seconds()
    return found


def kernel_start(framework: str, root: Path) -> float:
    """One kernel start of ``framework``: its Python, ipykernel, IPython, the framework and
    what the zygote of the book at ``root`` imports beside it (the cost a build pays once
    per framework; its kernels' cells no longer pay for those imports)."""
    from polybook.config import load_config
    from polybook.environments.venvs import environment
    from polybook.execution.kernels.preload import zygote_preload
    from polybook.layout import ENVS_DIR, EnvsFolder

    python = str(environment(framework, "cpu", EnvsFolder(REPO / ENVS_DIR)).python)
    module = {"pytorch": "torch"}.get(framework, framework)
    config = load_config(root)
    preload = zygote_preload(config.book, config.build, framework)
    modules = ["ipykernel.kernelapp", "IPython", module, *preload]
    code = (  # as the zygote imports them: one that fails is the kernel's own to import
        "import importlib\n"
        f"for name in {modules!r}:\n"
        "    try:\n        importlib.import_module(name)\n"
        "    except Exception:\n        pass\n"
    )
    started = time.monotonic()
    subprocess.run([python, "-c", code], check=True, capture_output=True)
    return time.monotonic() - started


def executors(folder: Path) -> tuple[float, float]:
    """Cold ``build eval`` walls, local executor and LocalCluster, each the best of two
    runs in the order local, cluster, cluster, local (a shared machine's load drifts)."""
    walls: dict[str, list[float]] = {"local": [], "dask": []}
    for n, kind in enumerate(("local", "dask", "dask", "local")):
        root = folder / f"{kind}{n}"
        copy_book(REPO, root)
        run = build(root, "eval", "--jobs", "2") if kind == "local" else cluster_build(root)
        walls[kind].append(run.wall)
    return min(walls["local"]), min(walls["dask"])


def cluster_build(root: Path) -> Run:
    """A cold ``build eval`` on a LocalCluster of two one-thread workers (loopback)."""
    import dask
    from distributed import LocalCluster

    from polybook.execution.executors.dask_worker import WORKER_CONFIG, worker_resources

    with (
        dask.config.set(WORKER_CONFIG),  # as `polybook worker` configures its worker
        LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            resources=worker_resources(),
        ) as cluster,
    ):
        return build(root, "eval", "--executor", "dask", "--scheduler", cluster.scheduler_address)


def embedded() -> None:
    """The embedded book's figures: builds with real notebooks, edits, executors, serve."""
    with tempfile.TemporaryDirectory(prefix="polybook-bench-") as tmp:
        root = Path(tmp) / "book"
        copy_book(REPO, root)
        cold = build(root, "eval")
        ran = cold.report["ran"]
        assert isinstance(ran, list)
        times = [float(r[2]) for r in ran]
        jobs = int(str(cold.report["jobs"]))
        cells = cell_seconds(root)
        starts = {fw: kernel_start(fw, root) for fw in sorted(cells)}
        floor = max(*times, (sum(cells.values()) + sum(starts.values())) / jobs)
        site = build(root)  # the site of the executed notebooks
        reader = reader_rows(root / "_build" / "html")
        noop = build(root)
        html, marker = edit_prose(root)
        prose = build(root)
        updated = marker in (root / "_build" / "html" / html).read_text()
        _, function = edit_saved(root, "    # edited by the benchmark")
        comment = build(root)
        edit_saved(root, "    pass  # edited by the benchmark")
        saved = build(root)
        counts = rebuilds(REPO)
        expected = counts.precise[("pytorch", function)]
        latency = serve_latency(root)
        local, dask = executors(Path(tmp))
        runs = (cold, site, noop, prose, comment, saved)
        peak = max(r.peak_rss_mb for r in runs)
        tree = max(r.tree_rss_mb for r in runs)
        started = ", ".join(f"{fw} {s:.1f}" for fw, s in starts.items())
        rows = [
            ("notebooks (cold eval)", f"{len(times)}", ""),
            ("cold eval wall time", f"{cold.wall:.1f} s", ""),
            (
                "execution floor: (cells + one kernel start per framework) / jobs",
                f"{floor:.1f} s (cells {sum(cells.values()):.1f}, starts {started}, jobs {jobs})",
                "",
            ),
            ("cold eval / floor", f"{cold.wall / floor:.3f}", "<= 1.03"),
            ("site of the executed book (cold Sphinx)", f"{site.wall:.1f} s", ""),
            ("no-op rebuild", f"{noop.wall:.2f} s", "<= 0.5 s"),
            ("prose edit rebuild", f"{prose.wall:.2f} s, HTML updated: {updated}", "<= 3 s"),
            ("prose edit: notebooks executed", f"{len(prose.report['ran'])}", "0"),  # type: ignore[arg-type]
            ("serve: a prose edit to the browser, median of 3", f"{latency:.2f} s", "<= 1 s"),
            (
                "comment-only #@save edit: notebooks executed",
                f"{len(comment.report['ran'])}",  # type: ignore[arg-type]
                "0",
            ),
            (
                f"#@save code edit ({function}, pytorch): notebooks executed",
                f"{len(saved.report['ran'])} (the precise rule predicts {expected}, "  # type: ignore[arg-type]
                f"today's rule {counts.today[('pytorch', function)]})",
                "as predicted",
            ),
            (
                f"re-executed per saved name, today's rule ({len(counts.today)} names)",
                counts.row(counts.today),
                "",
            ),
            ("re-executed per saved name, precise rule", counts.row(counts.precise), ""),
            ("cold eval, local executor (2 jobs), best of 2", f"{local:.1f} s", ""),
            ("cold eval, LocalCluster of 2 workers, best of 2", f"{dask:.1f} s", ""),
            ("LocalCluster / local", f"{dask / local:.3f}", "<= 1.1"),
            ("orchestrator peak RSS", f"{peak:.0f} MB", "<= 200 MB"),
            ("process tree peak RSS (kernels, zygotes, Sphinx)", f"{tree:.0f} MB", ""),
        ]
        show("polybook bench (embedded book, one run)", rows)
        show("the reader's pages (Chromium, file://, each opened fresh)", reader)


def make_book(root: Path, pages: int) -> None:
    """The synthetic book of ``benchmarks/make_book.py``."""
    generator = REPO / "benchmarks" / "make_book.py"
    command = [sys.executable, str(generator), str(root), "--pages", str(pages)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def sphinx_alone(root: Path, folder: Path, jobs: int) -> float:
    """Wall time of ``sphinx-build`` on the MyST pages and with the configuration that the
    last ``build html`` of ``root`` gave Sphinx (a copy: polybook's own folders untouched),
    without polybook: the floor of ``build html``."""
    settings = json.loads((root / "_build" / "sphinx-html.json").read_text())
    source = folder / "src"
    shutil.copytree(settings["srcdir"], source)
    conf = f"import json\nglobals().update(json.loads({json.dumps(settings['config'])!r}))\n"
    (source / "conf.py").write_text(conf)
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-j", str(jobs)]
    command += ["-d", str(folder / "doctrees"), str(source), str(folder / "html")]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"bench: Sphinx alone failed or warned:\n{done.stderr[-3000:]}")
    return wall


def cold_lib(root: Path) -> Run:
    """``build lib`` with no build folder and no library modules."""
    shutil.rmtree(root / "_build", ignore_errors=True)
    for module in ("torch", "mxnet", "jax", "tensorflow"):
        (root / "d2l" / f"{module}.py").unlink(missing_ok=True)
    return build(root, "lib")


def big_book(pages: int = BOOK_PAGES) -> None:
    """A synthetic book of ``pages`` pages in four frameworks, nothing executed: ``build lib``
    and ``build html``, cold and no-op, and Sphinx alone on the same pages."""
    from polybook.render.sphinx.process import sphinx_jobs

    with tempfile.TemporaryDirectory(prefix="polybook-bench-book-") as tmp:
        root = Path(tmp) / "book"
        make_book(root, pages)
        count = sum(1 for _ in root.rglob("*.md"))  # before a build writes any
        lib = min((cold_lib(root) for _ in range(3)), key=lambda run: run.wall)
        lib_noop = min((build(root, "lib") for _ in range(3)), key=lambda run: run.wall)
        cold = build(root, "html")
        noop = build(root, "html")
        slides = build(root, "slides")
        slides_noop = build(root, "slides")
        jobs = sphinx_jobs()
        floor = sphinx_alone(root, Path(tmp) / "sphinx", jobs)
        warned = len(json.loads((root / "_build" / "site-diagnostics.json").read_text()))
        rows = [
            ("pages x frameworks", f"{count} x 4", ""),
            ("build lib, cold, best of 3", f"{lib.wall:.2f} s", "<= 1 s"),
            ("build lib, no-op, best of 3", f"{lib_noop.wall:.2f} s", "<= 0.5 s"),
            ("build html, cold", f"{cold.wall:.1f} s (Sphinx -j {jobs})", ""),
            (f"Sphinx alone on the same MyST pages (-j {jobs})", f"{floor:.1f} s", ""),
            ("html cold / Sphinx alone", f"{cold.wall / floor:.2f}", "<= 1.5"),
            ("build html, no-op", f"{noop.wall:.2f} s", "<= 0.5 s"),
            ("build slides (decks of every page), after html", f"{slides.wall:.2f} s", ""),
            ("build slides, no-op", f"{slides_noop.wall:.2f} s", "<= 0.5 s"),
            ("pages with Sphinx warnings", f"{warned}", "0"),
        ]
        show(f"polybook bench ({pages}-page book, eval_notebook = False, one run)", rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="build-time figures, measured in one run")
    sections = ["embedded", "reader", "book", "drift", "envs", "clone", "d2lbook", "d2l", "parse"]
    parser.add_argument(
        "--only",
        choices=sections,
        help="one section only (reader: the site `make html` built, _build/html)",
    )
    parser.add_argument("--pages", type=int, default=BOOK_PAGES, help="the book section's")
    parser.add_argument("--before", help="clone section: also time this revision's make html")
    args = parser.parse_args(argv)
    # As an installed tool has it (pip compiles what it installs; an editable install, not).
    compileall.compile_dir(REPO / "polybook", quiet=1)
    if args.only in (None, "embedded"):
        embedded()
    if args.only == "reader":
        show("the reader's pages (Chromium, file://)", reader_rows(REPO / "_build" / "html"))
    if args.only in (None, "book"):
        big_book(args.pages)
    if args.only in (None, "drift"):
        from tools.bench_drift import drift_figures

        show(
            f"polybook diff ({args.pages} pages x 4 frameworks, one run)", drift_figures(args.pages)
        )
    if args.only in (None, "envs"):
        show("polybook env setup (uv and pip, one run)", environment_figures())
    if args.only in (None, "clone"):
        show("a fresh clone's make html (one run)", clone_figures(args.before))
    if args.only in (None, "d2lbook"):
        from tools.bench_d2lbook import d2lbook_figures

        show("d2l-en against d2lbook 1.0.3 (same Python, cold, one run)", d2lbook_figures())
    if args.only in (None, "d2l"):
        from tools.bench_d2l_html import TITLE, d2l_figures

        show(TITLE, d2l_figures())
    if args.only in (None, "parse"):
        from tools.bench_parse import TITLE as PARSE_TITLE
        from tools.bench_parse import parse_figures

        book = os.environ.get("D2L_EN", "")
        rows = parse_figures(Path(book)) if book else [("parse", "set D2L_EN", "")]
        show(PARSE_TITLE, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
