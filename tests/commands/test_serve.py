"""Live preview: ``polybook serve`` on a small book that executes nothing, a real server on
127.0.0.1, real file watching and headless Chromium."""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from polybook.commands.cli import _parser, run
from polybook.commands.live import EVENTS
from polybook.commands.serve import READY, Preview
from polybook.config import load_config
from polybook.diagnostics import Reporter

from ..browser import browser_context

CONFIG = "[project]\nname = s\ntitle = Served\n[build]\ntabs = pytorch\neval_notebook = false\n"


@pytest.fixture
def book(tmp_path: Path) -> Path:
    root = tmp_path / "book"
    (root / "chap").mkdir(parents=True)
    (root / "config.ini").write_text(CONFIG)
    (root / "index.md").write_text("# Served\n\n```toc\nchap/page\n```\n")
    (root / "chap" / "page.md").write_text("# Page\n\nFirst words.\n")
    return root


def _status(port: int, path: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture
def preview(book: Path) -> Iterator[Preview]:
    with _previewed(book) as served:
        yield served


@contextlib.contextmanager
def _previewed(book: Path) -> Iterator[Preview]:
    """A preview whose rebuilds run ``polybook build html`` as ``polybook serve`` does."""
    args = ["build", "html", "--quiet", "--root", str(book)]
    served = Preview(load_config(book), lambda found, _: run(_parser().parse_args(args), found))
    assert served.build() == 0
    served.start()
    loop = threading.Thread(target=served.run, daemon=True)
    loop.start()
    yield served
    served.stop()
    loop.join()


@pytest.mark.slow
def test_a_prose_edit_reaches_the_open_page_without_a_reload_by_hand(
    book: Path, preview: Preview
) -> None:
    host, port = preview.server.server_address[:2]
    assert host == "127.0.0.1"  # loopback only
    assert preview.url == f"http://127.0.0.1:{port}/"
    with browser_context() as context:
        page = context.new_page()
        page.goto(preview.url + "chap/page.html")
        assert "First words." in page.inner_text("article")
        page.wait_for_function("() => window.pbLiveReload && window.pbLiveReload.readyState === 1")
        page.evaluate("() => { window.pbNotReloaded = true; }")
        (book / "chap" / "page.md").write_text("# Page\n\nEdited words.\n")
        page.wait_for_function(
            "() => document.body.innerText.includes('Edited words.')", timeout=60000
        )
        # Only its article changed: the new one is in place, the page was not reloaded.
        assert page.evaluate("() => window.pbNotReloaded === true")
        assert "First words." not in page.inner_text("article")
        # A new title changes the navigation and the contents around it: the page reloads.
        (book / "chap" / "page.md").write_text("# Renamed\n\nEdited words.\n")
        page.wait_for_function("() => window.pbNotReloaded === undefined", timeout=60000)
        assert "Renamed" in page.title() and "Renamed" in page.inner_text(".sidebar-tree")
    built = (book / "_build" / "html" / "chap" / "page.html").read_text()
    assert "Edited words." in built and "EventSource" not in built  # served, not written


@pytest.mark.slow
def test_a_build_s_last_steps_wait_until_the_open_page_shows_it(book: Path) -> None:
    """Once a build's pages are out, the steps it has left (downloads, the link check) wait
    for the open page to show them rather than compete with it for the machine."""
    args = _parser().parse_args(["build", "html", "--quiet", "--root", str(book)])
    shown: list[int] = []  # pages that said they show the build, as its last steps start

    def rebuild(found: Reporter, pages_out: Callable[[], None]) -> int:
        code = run(args, found)
        pages_out()
        shown.append(served.state.taken)
        return code

    served = Preview(load_config(book), rebuild)
    assert served.build() == 0 and shown == [0]  # no page open: no wait
    served.start()
    loop = threading.Thread(target=served.run, daemon=True)
    loop.start()
    try:
        with browser_context() as context:
            page = context.new_page()
            page.goto(served.url + "chap/page.html")
            page.wait_for_function(
                "() => window.pbLiveReload && window.pbLiveReload.readyState === 1"
            )
            (book / "chap" / "page.md").write_text("# Page\n\nEdited words.\n")
            page.wait_for_function("() => document.body.innerText.includes('Edited words.')")
            deadline = time.monotonic() + 60
            while len(shown) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert shown == [0, 1]
    finally:
        served.stop()
        loop.join()


TABBED = """# Page

First words.

<script>window.pbArticleRuns = (window.pbArticleRuns || 0) + 1;</script>

```{.python .input}
%%tab pytorch
print("torch side")
```

```{.python .input}
%%tab mxnet
print("mxnet side")
```
"""


@pytest.mark.slow
def test_an_article_put_in_place_keeps_the_framework_tabs_and_copy_buttons(
    book: Path,
) -> None:
    (book / "config.ini").write_text(CONFIG.replace("tabs = pytorch", "tabs = pytorch, mxnet"))
    (book / "chap" / "page.md").write_text(TABBED)
    visible = "() => [...document.querySelectorAll('article .pb-panel:not([hidden])')]"
    visible += ".map((p) => p.getAttribute('data-pb-tab')).join(',')"
    with _previewed(book) as served, browser_context() as context:
        page = context.new_page()
        page.goto(served.url + "chap/page.html")
        page.wait_for_function("() => window.pbLiveReload && window.pbLiveReload.readyState === 1")
        page.click("article .pb-tab[data-pb-tab=mxnet]")
        assert page.evaluate(visible) == "mxnet"
        page.evaluate("() => { window.pbNotReloaded = true; }")
        (book / "chap" / "page.md").write_text(TABBED.replace("First words.", "Edited words."))
        page.wait_for_function("() => document.body.innerText.includes('Edited words.')")
        assert page.evaluate("() => window.pbNotReloaded === true")  # in place
        assert page.evaluate("() => window.pbArticleRuns") == 2  # its scripts ran, as on a load
        assert page.evaluate(visible) == "mxnet"  # the reader's framework, on the new article
        assert page.locator("article .pb-tab[data-pb-tab=mxnet]").get_attribute("aria-selected")
        assert page.locator("article button.copybtn").count() >= 2  # the new code's buttons
        page.click("article .pb-tab[data-pb-tab=pytorch]")  # the new tab bar answers
        assert page.evaluate(visible) == "pytorch"
        assert page.locator("[role=status].pb-sr-only").count() <= 1  # no second live region


def test_nothing_outside_the_site_is_served(book: Path, preview: Preview) -> None:
    port = int(preview.server.server_address[1])
    (book / "_build" / "html" / "escape").symlink_to(book)  # a link out of the site
    assert _status(port, "/chap/page.html") == 200
    for path in ("/../config.ini", "/%2e%2e/config.ini", "/escape/config.ini", "/chap/"):
        assert _status(port, path) == 404, path
        assert _get(port, path, method="HEAD")[0] == 404, path


def _get(port: int, path: str, host: str = "", method: str = "GET") -> tuple[int, str]:
    """A GET (or ``method``) of ``path`` (with ``host`` as its Host header when given):
    status and body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, headers={"Host": host} if host else {})
        answer = connection.getresponse()
        body = answer.read(100_000) if path != EVENTS and method == "GET" else answer.read(0)
        return answer.status, body.decode("utf-8", errors="replace")
    finally:
        connection.close()


def test_every_html_page_gets_the_reload_script_whatever_its_address(
    book: Path, preview: Preview
) -> None:
    port = int(preview.server.server_address[1])
    (book / "_build" / "html" / "chap" / "index.html").write_text("<html><body>C</body></html>")
    for path in ("/", "/index.html", "/chap/", "/chap/index.html", "/chap/page.html", "/?x=1"):
        status, body = _get(port, path)
        assert status == 200 and "EventSource" in body, path
    assert _get(port, "/chap")[0] == 301  # to /chap/, which has it


def test_a_request_for_another_host_is_refused(book: Path, preview: Preview) -> None:
    """DNS rebinding: a page of evil.example, its name now 127.0.0.1, reads the preview."""
    port = int(preview.server.server_address[1])
    other = port + 1 if port < 65535 else port - 1  # this host, another server's port
    refused = [f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", ""]
    refused += [f"127.0.0.1:{other}", f"localhost:{other}", "127.0.0.1", "localhost"]
    for host in refused:
        for path in ("/", "/chap/page.html", EVENTS):
            status, body = _get(port, path, host or " ")
            assert status == 403 and "First words" not in body, (host, path)
        for path in ("/", "/chap/page.html", "/chap/"):  # HEAD too: not even the page's size
            assert _get(port, path, host or " ", "HEAD")[0] == 403, (host, path)
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"LOCALHOST:{port}"):
        assert _get(port, "/chap/page.html", host)[0] == 200, host
        assert _get(port, "/chap/page.html", host, "HEAD")[0] == 200, host


@pytest.mark.slow
def test_polybook_serve_prints_where_it_serves_and_stops_on_ctrl_c(book: Path) -> None:
    command = [sys.executable, "-m", "polybook", "--root", str(book), "serve", "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("polybook: serving http://127.0.0.1:"), line
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        assert _status(port, "/index.html") == 200
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err


def _sphinx_children(parent: int) -> list[int]:
    """The Sphinx processes ``parent`` started (``python -m polybook.render.sphinx.run``)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if (
            "polybook.render.sphinx.run" in cmdline
            and int(stat.rsplit(")", 1)[1].split()[1]) == parent
        ):
            found.append(int(proc.name))
    return found


def _holds(path: Path, text: str) -> bool:
    return text in path.read_text(encoding="utf-8")


def _until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 120
    while not check():
        if time.monotonic() > deadline:
            pytest.fail("the served site did not change in time")
        time.sleep(0.1)


@contextlib.contextmanager
def _served(book: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``polybook serve`` on ``book``, once it serves and its Sphinx process waits for the
    next build: (the process, that Sphinx process); stopped with Ctrl-C, which it obeys."""
    command = [sys.executable, "-m", "polybook", "--root", str(book), "serve", "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        serving = process.stdout.readline()
        assert serving.startswith("polybook: serving")
        process.port = int(serving.split("127.0.0.1:")[1].split("/")[0])  # type: ignore[attr-defined]
        assert process.stdout.readline().startswith(READY)  # the first build is done
        _until(lambda: len(_sphinx_children(process.pid)) == 1)  # started for the next edit
        (warm,) = _sphinx_children(process.pid)
        yield process, warm
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err


@pytest.mark.slow
def test_serve_keeps_one_sphinx_process_warm_across_rebuilds(book: Path) -> None:
    html = book / "_build" / "html" / "chap" / "page.html"
    with _served(book) as (process, warm):
        for words in ("Second words.", "Third words."):
            (book / "chap" / "page.md").write_text(f"# Page\n\n{words}\n")
            _until(partial(_holds, html, words))
            _until(lambda: "build succeeded" in (book / "_build/sphinx-html.log").read_text())
            assert _sphinx_children(process.pid) == [warm]  # the same process built it
    assert _sphinx_children(process.pid) == []
    assert not list((book / "_build").glob("*.next"))


BIB = (
    "@article{lee2020,\n  title={Dots},\n  author={Lee, Ann},\n  journal={J},\n  year={2020}\n}\n"
    "@article{kim2021,\n  title={Lines},\n  author={Kim, Bo},\n  journal={J},\n  year={2021}\n}\n"
)


@pytest.mark.slow
def test_serve_keeps_the_citations_until_one_changes(book: Path) -> None:
    (book / "refs.bib").write_text(BIB)
    config = (book / "config.ini").read_text().replace("[build]", "bibfile = refs.bib\n[build]")
    (book / "config.ini").write_text(config)
    (book / "index.md").write_text("# Served\n\n```toc\nchap/page\nchap/cites\n```\n")
    (book / "chap" / "cites.md").write_text("# Cites\n\nAs :citet:`lee2020` shows.\n")
    cites = book / "_build" / "html" / "chap" / "cites.html"
    log = book / "_build" / "sphinx-html.log"
    with _served(book):
        first = log.read_text()  # the first build's: the edit's replaces it once it is done
        (book / "chap" / "page.md").write_text("# Page\n\nSecond words.\n")
        _until(partial(_holds, book / "_build" / "html" / "chap" / "page.html", "Second"))
        _until(lambda: log.read_text() != first and "build succeeded" in log.read_text())
        assert "citations unchanged: kept" in log.read_text()
        (book / "chap" / "cites.md").write_text(
            "# Cites\n\n:citet:`kim2021` and :cite:`lee2020`.\n"
        )
        # Worked out again: a kept list would lack kim2021, shown then as its key.
        _until(partial(_holds, cites, "Kim"))
    page = cites.read_text()
    assert "Lee" in page and "2021" in page and "kim2021]" not in page


@pytest.mark.slow
def test_serve_on_a_built_book_has_sphinx_warm_before_the_first_save(book: Path) -> None:
    # Nothing changed since the build: serve still runs its stages once, so that the first
    # save finds what the next ones find (the imports done, Sphinx loaded and waiting).
    built = subprocess.run(
        [sys.executable, "-m", "polybook", "--root", str(book), "--quiet", "build", "html"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    html = book / "_build" / "html" / "chap" / "page.html"
    with _served(book) as (process, warm):
        (book / "chap" / "page.md").write_text("# Page\n\nSaved words.\n")
        _until(partial(_holds, html, "Saved words."))
        assert _sphinx_children(process.pid) == [warm]  # the first save's build ran in it


def test_a_site_built_before_is_served_while_the_first_build_runs(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = book / "_build" / "html"
    site.mkdir(parents=True)
    (site / "index.html").write_text("<p>Built before.</p>")
    building, finish = threading.Event(), threading.Event()

    def rebuild(found: Reporter, _: Callable[[], None]) -> int:  # held until the site is asked
        building.set()
        finish.wait(60)
        return 0

    served = Preview(load_config(book), rebuild)
    opening = threading.Thread(target=served.open, daemon=True)
    opening.start()
    try:
        assert building.wait(60)
        port = served.server.server_address[1]
        assert _status(port, "/index.html") == 200  # before the build ends
        assert READY not in capsys.readouterr().out
    finally:
        finish.set()
        opening.join(60)
        served.stop()
    assert capsys.readouterr().out.splitlines() == [READY]  # once the first build is done


def test_a_book_never_built_is_served_once_its_first_build_made_the_site(book: Path) -> None:
    def rebuild(found: Reporter, _: Callable[[], None]) -> int:  # the build fails: no site
        return 1

    served = Preview(load_config(book), rebuild)
    try:
        assert served.open() is False and not served.serving
    finally:
        served.stop()


def test_the_bench_knows_the_line_that_says_the_first_build_is_done() -> None:
    from tools.bench_runs import READY_LINE

    assert READY.startswith(READY_LINE)


def _messages(port: int) -> Iterator[dict[str, Any]]:
    """The states the event stream sends, as they come (its comments skipped)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", EVENTS)
    answer = connection.getresponse()
    try:
        while True:
            line = answer.fp.readline().decode()
            if line.startswith("data: "):
                yield json.loads(line[len("data: ") :])
    finally:
        connection.close()


@pytest.mark.slow
def test_each_build_is_told_once_and_a_strict_book_waits_for_its_link_check(book: Path) -> None:
    """The open pages are told of a build once, as soon as its pages are written (before
    the link check, which only warns); where a warning fails the build (``strict``) they
    are told after the check, of its problems."""
    page = book / "chap" / "page.md"
    with _served(book) as (process, _):
        stream = _messages(process.port)  # type: ignore[attr-defined]
        built = next(stream)["built"]
        page.write_text("# Page\n\nEdited words.\n")
        assert next(stream) == {"built": built + 1, "problems": []}
        assert "Edited words." in (book / "_build" / "html" / "chap" / "page.html").read_text()
        (book / "config.ini").write_text(CONFIG + "strict = true\n")
        assert next(stream) == {"built": built + 2, "problems": []}  # once, not twice
        page.write_text('# Page\n\nA <a href="nowhere.html">raw link</a>.\n')  # Sphinx passes it
        failed = next(stream)
        assert failed["built"] == built + 2 and "dead link" in " ".join(failed["problems"])
