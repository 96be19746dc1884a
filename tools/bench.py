"""``make bench``: build-time figures of the embedded book, measured in one run.

Works on a temporary copy of the book (never the repository) with a fresh cache.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from polybook.paths import SOURCE_ROOT

BOOK_FILES = ("config.ini", "index.md")
BOOK_DIRS = ("img", "d2l", "static")


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


def build(root: Path) -> Run:
    """One ``polybook build html``; peak RSS is the orchestrator's own (VmHWM)."""
    report_file = root / "_bench_report.json"
    report_file.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "polybook.cli",
        "--quiet",
        "--root",
        str(root),
        "build",
        "html",
        "--report",
        str(report_file),
    ]
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


def edit_saved(root: Path, framework: str = "pytorch") -> str:
    """Add a comment inside the last single-framework saved function of the toolkit."""
    page = root / "chapter_builders-guide" / "toolkit.md"
    lines = page.read_text().splitlines()
    tab = None
    target = None
    for i, line in enumerate(lines):
        if line.startswith("%%tab"):
            tab = line.removeprefix("%%tab").strip()
        if tab == framework and line.startswith("def ") and line.endswith("#@save"):
            target = i
    if target is None:
        raise SystemExit("bench: no saved function to edit")
    lines.insert(target + 1, "    # edited by the benchmark")
    page.write_text("\n".join(lines) + "\n")
    return page.relative_to(root).as_posix()


def main() -> int:
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
        edit_saved(root)
        saved = build(root)
        peak = max(r.peak_rss_mb for r in (cold, noop, prose, saved))
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
                "#@save edit (pytorch toolkit): notebooks executed",
                f"{len(saved.report['ran'])} "  # type: ignore[arg-type]
                f"({', '.join(sorted({r[1] for r in saved.report['ran']}))})",  # type: ignore[attr-defined]
                "pytorch notebooks from the toolkit on",
            ),
            ("orchestrator peak RSS", f"{peak:.0f} MB", "<= 200 MB"),
        ]
        width = max(len(r[0]) for r in rows)
        print("polybook bench (embedded book, one run)")
        for name, value, target in rows:
            print(f"  {name:<{width}}  {value}" + (f"   [target {target}]" if target else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
