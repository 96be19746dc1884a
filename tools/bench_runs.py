"""Measured runs for ``make bench``: a ``polybook build`` (its wall time, the orchestrator's
peak RSS and the most its whole process tree of workers, zygotes, kernels and Sphinx held),
and a ``polybook serve`` rebuild seen in the browser."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"  # Debian's, as the browser tests use it
# How polybook.commands.serve.READY begins (not imported: older revisions are measured too).
READY_LINE = "polybook: ready"


@dataclass
class Run:
    wall: float
    peak_rss_mb: float  # the orchestrator's own
    report: dict[str, object]
    tree_rss_mb: float = 0.0  # the most the whole process tree held at once


def _status_kb(pid: int, field: str) -> int:
    try:
        found = re.search(rf"{field}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    except OSError:
        return 0
    return int(found.group(1)) if found else 0


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (its workers, zygotes, kernels, Sphinx)."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(proc.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


class Sampler(threading.Thread):
    """Samples a process's peak RSS (its VmHWM, every 20 ms) and the total RSS of its
    process tree (every quarter second: a look at every process costs CPU) while it runs."""

    TREE_EVERY = 12  # samples of the process per sample of the tree

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = self.tree_kb = 0
        self.done = threading.Event()

    def run(self) -> None:
        count = 0
        while not self.done.wait(0.02):
            self.peak_kb = max(self.peak_kb, _status_kb(self.pid, "VmHWM"))
            count += 1
            if count % self.TREE_EVERY == 1:
                tree = sum(_status_kb(pid, "VmRSS") for pid in descendants(self.pid))
                self.tree_kb = max(self.tree_kb, tree)


def build(root: Path, target: str = "html", *options: str) -> Run:
    """One ``polybook build``, its wall time and memory (:class:`Sampler`)."""
    report_file = root / "_bench_report.json"
    report_file.unlink(missing_ok=True)
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root)]
    command += ["build", target, "--report", str(report_file), *options]
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid)
    sampler.start()
    _, err = proc.communicate()
    wall = time.monotonic() - started
    sampler.done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"bench: the build failed:\n{err[-3000:]}")
    report = json.loads(report_file.read_text())
    return Run(wall, sampler.peak_kb / 1024, report, sampler.tree_kb / 1024)


def serve_latency(root: Path, edits: int = 3, formula: bool = False) -> float:
    """Seconds from a prose edit saved to its words shown in the browser, with ``polybook
    serve`` running and the page open in headless Chromium (the median of ``edits``);
    ``formula``: each edit adds a new formula, seen drawn."""
    page_file = sorted(root.glob("chapter_*/*.md"))[1]
    latencies = serve_edits(root, page_file, edits, formula=formula).latencies
    return sorted(latencies)[len(latencies) // 2]


@dataclass
class Served:
    first_page: float  # seconds from ``polybook serve`` started to the page served
    latencies: list[float]  # per edit, from the save to its words shown in the browser


def _first_page(url: str, started: float, server: subprocess.Popen[str]) -> float:
    """Seconds from ``started`` to ``url`` answered 200 (polled every 20 ms)."""
    import urllib.request

    while server.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                if answer.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.02)
    raise SystemExit("bench: polybook serve stopped before it served a page")


def serve_edits(
    root: Path,
    page_file: Path,
    edits: int,
    *options: str,
    formula: bool = False,
    settle: float = 3.0,
    ready: bool = True,
) -> Served:
    """``polybook serve`` (with ``options``) started, ``page_file``'s page opened in headless
    Chromium, then ``edits`` saves of it, each timed until the browser shows it. ``ready``:
    the edits wait for the line saying its first build is done (a revision before it
    served only once that build was done)."""
    from playwright.sync_api import sync_playwright

    from polybook.site.math_speech import spoken

    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), "serve"]
    started = time.monotonic()
    server = subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    listening = "() => window.pbLiveReload && window.pbLiveReload.readyState === 1"
    latencies = []
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split("serving ", 1)[1].split()[0]
        url += page_file.relative_to(root).with_suffix(".html").as_posix()
        first = _first_page(url, started, server)
        while ready and not server.stdout.readline().startswith(READY_LINE):  # first build done
            if server.poll() is not None:
                raise SystemExit("bench: polybook serve stopped before its first build ended")
        time.sleep(settle)  # the Sphinx process it keeps warm loads after its first build
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(url)
            page.wait_for_function(listening)
            for n in range(edits):
                marker = f"Edited by the benchmark, {n}."
                tex = f"x_{{{n}}}^{{{n + 2}}}"
                if formula:
                    marker = f"Drawn by the benchmark ${tex}$."
                lines = page_file.read_text().splitlines()
                at = next(i for i, line in enumerate(lines) if i > 2 and line[:1].isalpha())
                lines[at] += f" {marker}"
                started = time.monotonic()
                page_file.write_text("\n".join(lines) + "\n")
                # textContent: innerText would lay the page out at each frame while it loads,
                # slowing what is measured (by about 40 ms a reload here)
                shown = f"() => document.body.textContent.includes({marker!r})"
                if formula:  # the formula drawn, named as assistive technology reads it
                    found = f"span.pb-math[aria-label={spoken(tex)!r}] svg"
                    shown = f"() => document.querySelector({found!r}) !== null"
                page.wait_for_function(shown, timeout=120000)
                latencies.append(time.monotonic() - started)
                page.wait_for_function(listening)
                time.sleep(2)  # its Sphinx ready for the next
            browser.close()
    finally:
        server.send_signal(signal.SIGTERM)  # a background job's children ignore SIGINT
        server.communicate(timeout=120)
    return Served(first, latencies)
