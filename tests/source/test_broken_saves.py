"""Broken saves: a ``config.ini`` with a byte order mark is read; one with a key before any
section, a Latin-1 byte or several bad values is an error at each line, all listed at once.
A real ``polybook serve`` receiving such saves keeps serving the last good page, shows the
problem over it (in a real browser) until it is fixed, and builds and watches pages in
folders made while it runs."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import key_location, load_config
from polybook.diagnostics import PolybookError, PolybookErrors

from ..books import index_page, write_book
from ..browser import browser_context

CONFIG = "[project]\nname = s\ntitle = Served\n[build]\ntabs = pytorch\neval_notebook = false\n"
BOM = b"\xef\xbb\xbf"


def errors_of(root: Path) -> list[str]:
    with pytest.raises(PolybookError) as info:
        load_config(root)
    return [str(d) for d in info.value.diagnostics]


def test_a_byte_order_mark_is_read_and_lines_still_count_from_the_first(tmp_path: Path) -> None:
    root = write_book(tmp_path, {"config.ini": BOM + b"[project]\nname = b\n[build]\ntabz = x\n"})
    config = load_config(root)
    assert config.project.name == "b"
    assert [str(d) for d in config.ignored] == [
        "config.ini:4: unknown key [build] tabz is ignored; did you mean `tabs`? [polybook.config]"
    ]
    assert key_location(root, "project", "name").line == 2


def test_a_key_before_any_section_is_an_error_at_its_line(tmp_path: Path) -> None:
    root = write_book(tmp_path, {"config.ini": BOM + b"name = b\n[project]\n"}, config=None)
    assert errors_of(root) == [
        "config.ini:1: 'name = b' comes before any [section]: put it under one, e.g. [build]"
        " [polybook.config]"
    ]


def test_a_latin_1_byte_is_an_error_at_its_line_and_column(tmp_path: Path) -> None:
    data = "[project]\ntitle = Caf\xe9\n".encode("latin-1")
    root = write_book(tmp_path, {"config.ini": data}, config=None)
    assert errors_of(root) == [
        "config.ini:2: not UTF-8: byte 0xe9 at column 12 (invalid continuation byte); save the"
        " file as UTF-8 [polybook.config]"
    ]


def test_every_bad_value_and_every_unreadable_line_is_listed_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "[build]\njobs = many\ncell_timeout = 0\ndevice = gpu\nrequirements = missing.txt\n"
        "[framework-x]\nkernel_env = NOVALUE\n"
    )
    root = write_book(tmp_path, {"index.md": "# I\n"}, config=text)
    with pytest.raises(PolybookErrors) as info:
        load_config(root)
    found = [f"{d.location}: {d.message}" for d in info.value.diagnostics]
    assert found == [
        "config.ini:2: [build] jobs: 'many' is not an integer",
        "config.ini:3: [build] cell_timeout: 0 is too small: the least accepted is 1",
        "config.ini:4: [build] device: 'gpu' is not one of auto, cpu, cuda; did you mean 'cpu'?",
        "config.ini:7: [framework-x] kernel_env: 'NOVALUE' is not NAME=VALUE",
        "config.ini:5: [build] requirements: no file 'missing.txt' in the book",
    ]
    assert main(["--root", str(root), "check"]) == 1
    printed = [line for line in capsys.readouterr().err.splitlines() if "config.ini:" in line]
    assert printed == [f"polybook: {d}" for d in info.value.diagnostics]
    (root / "config.ini").write_text("[build]\ntabs = pytorch\nnot a line\n[x\n")
    assert errors_of(root) == [
        "config.ini:3: cannot read 'not a line' [polybook.config]",
        "config.ini:4: cannot read '[x' [polybook.config]",
    ]


# A real polybook serve.


def served(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", errors="replace")
    finally:
        connection.close()


def build_state(port: int) -> dict[str, object]:
    """The state the server sends a page as it opens its event stream."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/_polybook/events")
        response = connection.getresponse()
        while True:
            line = response.readline().decode()
            if line.startswith("data: "):
                state: dict[str, object] = json.loads(line.removeprefix("data: "))
                return state
    finally:
        connection.close()


def shows(port: int, where: str) -> Callable[[], bool]:
    """Whether the first problem of the server's last build starts with ``where``."""

    def first_is_there() -> bool:
        problems = build_state(port)["problems"]
        return isinstance(problems, list) and bool(problems) and problems[0].startswith(where)

    return first_is_there


def until(condition: Callable[[], bool], seconds: float = 60, log: Path | None = None) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            said = log.read_text() if log else ""
            pytest.fail(f"timed out waiting; the server said:\n{said}")
        time.sleep(0.2)


class Serve:
    """``polybook serve`` in a process of its own, and the port it serves on."""

    def __init__(self, root: Path, log: Path) -> None:
        command = [sys.executable, "-m", "polybook", "--root", str(root), "serve"]
        self.log_path = log
        self.log = log.open("w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("polybook: serving http://127.0.0.1:"), line
        self.port = int(line.split("127.0.0.1:")[1].split("/")[0])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        self.process.communicate(timeout=60)
        self.log.close()
        return self.process.returncode


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[Path, Serve]]:
    root = write_book(
        tmp_path / "book",
        {"index.md": index_page("Served", ["chap/page"]), "chap/page.md": "# Page\n\nFirst.\n"},
        CONFIG,
    )
    process = Serve(root, tmp_path / "serve.log")
    try:
        yield root, process
    finally:
        if process.process.poll() is None:
            process.stop()


BAD_SAVES = {
    "latin-1": ("[project]\ntitle = Caf\xe9\n".encode("latin-1"), "config.ini:2: not UTF-8"),
    "key before a section": (BOM + CONFIG.replace("[project]\n", "").encode(), "config.ini:1: "),
    "bad value": ((CONFIG + "jobs = many\n").encode(), "config.ini:7: [build] jobs: 'many'"),
}


@pytest.mark.slow
def test_serve_keeps_the_last_good_page_through_bad_saves_and_says_where_they_are_bad(
    serve: tuple[Path, Serve],
) -> None:
    root, process = serve
    config = root / "config.ini"
    config.write_bytes(BOM + CONFIG.replace("Served", "With a BOM").encode())
    until(lambda: "With a BOM" in served(process.port, "/chap/page.html")[1])
    assert build_state(process.port)["problems"] == []
    built = []
    for name, (data, where) in BAD_SAVES.items():
        config.write_bytes(data)
        until(shows(process.port, where), 60, process.log_path)
        built.append(build_state(process.port)["built"])
        status, page = served(process.port, "/chap/page.html")
        assert status == 200 and "With a BOM" in page and "First." in page, name
        assert process.process.poll() is None, name
    assert len(set(built)) == 1  # no build succeeded while the file was bad
    config.write_text(CONFIG)
    until(lambda: build_state(process.port)["problems"] == [])
    assert "With a BOM" not in served(process.port, "/chap/page.html")[1]
    assert process.stop() == 0


@pytest.mark.slow
def test_pages_in_a_folder_made_while_serving_are_built_and_watched(
    serve: tuple[Path, Serve],
) -> None:
    root, process = serve
    (root / "part2").mkdir()
    (root / "part2" / "new.md").write_text("# New\n\nNew words.\n")
    (root / "index.md").write_text(index_page("Served", ["chap/page", "part2/new"]))
    until(lambda: "New words." in served(process.port, "/part2/new.html")[1])
    (root / "part2" / "new.md").write_text("# New\n\nEdited words.\n")
    until(lambda: "Edited words." in served(process.port, "/part2/new.html")[1])
    (root / "part2" / "deeper").mkdir()
    (root / "part2" / "deeper" / "more.md").write_text("# More\n\nDeep words.\n")
    (root / "part2" / "new.md").write_text("# New\n\n```toc\ndeeper/more\n```\n")
    (root / "config.ini").write_text(CONFIG + "notebooks = *.md */*.md */*/*.md\n")
    until(lambda: "Deep words." in served(process.port, "/part2/deeper/more.html")[1])
    assert process.stop() == 0


@pytest.mark.slow
def test_the_open_page_shows_a_bad_save_until_it_is_fixed(serve: tuple[Path, Serve]) -> None:
    root, process = serve
    with browser_context() as context:
        page = context.new_page()
        page.goto(process.url + "chap/page.html")
        page.wait_for_function("() => window.pbLiveReload && window.pbLiveReload.readyState === 1")
        page.evaluate("() => { window.pbNotReloaded = true; }")
        (root / "config.ini").write_bytes("[project]\ntitle = Caf\xe9\n".encode("latin-1"))
        overlay = page.locator("#pb-build-problems")
        overlay.wait_for(timeout=60000)
        text = overlay.inner_text()
        assert "The last build failed" in text
        assert "config.ini:2: not UTF-8: byte 0xe9 at column 12" in text
        assert "First." in page.inner_text("article")  # the last good page stays
        assert page.evaluate("() => window.pbNotReloaded === true")
        (root / "chap" / "page.md").write_text("# Page\n\nSecond.\n")  # still broken
        time.sleep(2)
        assert overlay.is_visible()
        (root / "config.ini").write_text(CONFIG)
        page.wait_for_function("() => document.body.innerText.includes('Second.')", timeout=60000)
        # Only the article changed since the last good page: the new one is put in place
        assert page.evaluate("() => window.pbNotReloaded === true")
        assert page.locator("#pb-build-problems").count() == 0
        opened = context.new_page()  # a page opened while a save is bad shows it at once
        (root / "config.ini").write_text("name = x\n" + CONFIG)
        until(lambda: bool(build_state(process.port)["problems"]))
        opened.goto(process.url + "index.html")
        opened.locator("#pb-build-problems").wait_for(timeout=30000)
        assert "config.ini:1: 'name = x'" in opened.locator("#pb-build-problems").inner_text()
    assert process.stop() == 0
