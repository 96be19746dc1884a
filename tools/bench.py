"""``make bench``: build-time figures of the embedded book, then of a synthetic 200-page
book (``benchmarks/make_book.py``), each measured in one run (``--only book`` for the second
alone: it executes nothing).

Works on temporary copies (never the repository) with a fresh cache.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from polybook.paths import SOURCE_ROOT

BOOK_FILES = ("config.ini", "index.md", "d2l.bib")
BOOK_DIRS = ("img", "d2l", "static")
BOOK_PAGES = 200  # the synthetic book's (benchmarks/make_book.py)


@dataclass
class Run:
    wall: float
    peak_rss_mb: float
    report: dict[str, object]


def copy_book(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True)
    for name in BOOK_FILES:
        shutil.copy2(src / name, dst / name)
    for folder in [*BOOK_DIRS, *(p.name for p in src.glob("chapter_*"))]:
        if (src / folder).is_dir():
            shutil.copytree(src / folder, dst / folder)


def build(root: Path, target: str = "html", *options: str) -> Run:
    """One ``polybook build``; peak RSS is the orchestrator's own (VmHWM)."""
    report_file = root / "_bench_report.json"
    report_file.unlink(missing_ok=True)
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root)]
    command += ["build", target, "--report", str(report_file), *options]
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        try:
            found = re.search(r"VmHWM:\s+(\d+) kB", status.read_text())
            peak = max(peak, int(found.group(1)) if found else 0)
        except OSError:
            pass
        time.sleep(0.02)
    wall = time.monotonic() - started
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"bench: the build failed:\n{err[-3000:]}")
    return Run(wall, peak / 1024, json.loads(report_file.read_text()))


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
    notebooks = split_book(load_book(config, reporter), config.tabs, reporter)
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
        before = {i: usage.digest_for(reads[i], i) for i in runnable}
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
            changed = {i for i in runnable if edited.digest_for(reads[i], i) != before[i]}
            precise[(fw, name)] = len(changed | {block.notebook})
            today[(fw, name)] = sum(1 for i in runnable if i >= block.notebook)
    return Rebuilds(today, precise)


def executors(folder: Path) -> tuple[float, float]:
    """Cold ``build eval`` walls, local executor and LocalCluster, each the best of two
    runs in the order local, cluster, cluster, local (a shared machine's load drifts)."""
    walls: dict[str, list[float]] = {"local": [], "dask": []}
    for n, kind in enumerate(("local", "dask", "dask", "local")):
        root = folder / f"{kind}{n}"
        copy_book(SOURCE_ROOT, root)
        run = build(root, "eval", "--jobs", "2") if kind == "local" else cluster_build(root)
        walls[kind].append(run.wall)
    return min(walls["local"]), min(walls["dask"])


def cluster_build(root: Path) -> Run:
    """A cold ``build eval`` on a LocalCluster of two one-thread workers (loopback)."""
    import dask
    from distributed import LocalCluster

    from polybook.execution.dask_worker import WORKER_CONFIG, worker_resources

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
    """The embedded book's figures: builds with real notebooks, edits, executors."""
    with tempfile.TemporaryDirectory(prefix="polybook-bench-") as tmp:
        root = Path(tmp) / "book"
        copy_book(SOURCE_ROOT, root)
        cold = build(root)
        ran = cold.report["ran"]
        assert isinstance(ran, list)
        times = [float(r[2]) for r in ran]
        jobs = int(str(cold.report["jobs"]))
        floor = max(*times, sum(times) / jobs)
        noop = build(root)
        html, marker = edit_prose(root)
        prose = build(root)
        updated = marker in (root / "_build" / "html" / html).read_text()
        _, function = edit_saved(root, "    # edited by the benchmark")
        comment = build(root)
        edit_saved(root, "    pass  # edited by the benchmark")
        saved = build(root)
        counts = rebuilds(SOURCE_ROOT)
        expected = counts.precise[("pytorch", function)]
        local, dask = executors(Path(tmp))
        peak = max(r.peak_rss_mb for r in (cold, noop, prose, comment, saved))
        rows = [
            ("notebooks (cold build)", f"{len(times)}", ""),
            ("cold build wall time", f"{cold.wall:.1f} s", ""),
            (
                "execution floor max(longest, sum/jobs)",
                f"{floor:.1f} s (longest {max(times):.1f}, sum {sum(times):.1f}, jobs {jobs})",
                "",
            ),
            ("cold / floor", f"{cold.wall / floor:.3f}", "<= 1.15"),
            ("no-op rebuild", f"{noop.wall:.2f} s", "<= 0.5 s"),
            ("prose edit rebuild", f"{prose.wall:.2f} s, HTML updated: {updated}", "<= 3 s"),
            ("prose edit: notebooks executed", f"{len(prose.report['ran'])}", "0"),  # type: ignore[arg-type]
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
        ]
        show("polybook bench (embedded book, one run)", rows)


def show(title: str, rows: list[tuple[str, str, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    print(title)
    for name, value, target in rows:
        print(f"  {name:<{width}}  {value}" + (f"   [target {target}]" if target else ""))


def make_book(root: Path, pages: int) -> None:
    """The synthetic book of ``benchmarks/make_book.py``."""
    generator = SOURCE_ROOT / "benchmarks" / "make_book.py"
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
    from polybook.render.sphinx_process import sphinx_jobs

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
    parser.add_argument("--only", choices=["embedded", "book"], help="one section only")
    parser.add_argument("--pages", type=int, default=BOOK_PAGES, help="the book section's")
    args = parser.parse_args(argv)
    # As an installed tool has it (pip compiles what it installs; an editable install, not).
    compileall.compile_dir(SOURCE_ROOT / "polybook", quiet=1)
    if args.only != "book":
        embedded()
    if args.only != "embedded":
        big_book(args.pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
