"""Authoring in Jupyter, end to end: ``polybook lab`` on a copy of the shipped book, its
contents API (pages as notebooks, saved back losslessly) and a real JAX kernel, driven
through Jupyter Server's REST and WebSocket API; one page shown in headless Chromium."""

from __future__ import annotations

import difflib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import websocket

from polybook.nb import strip_ansi

from ..books import REPO, copy_shipped
from ..browser import browser_context

pytestmark = pytest.mark.slow

TOKEN = "polybook-test-token"
ANSWER_WITHIN = 120  # seconds for any one answer of the server or kernel: a hang fails
READY_WAIT = 10  # seconds for a kernel_info answer before asking again on a new connection
PAGES = sorted(
    p.relative_to(REPO).as_posix()
    for p in [REPO / "index.md", *REPO.glob("chapter_builders-guide/*.md")]
)


@dataclass
class Lab:
    url: str
    book: Path

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """The server's JSON answer; a server that does not answer fails with its log."""
        try:
            return self.ask(method, path, body)
        except (TimeoutError, urllib.error.URLError) as exc:
            log = (self.book.parent / "lab.log").read_text(errors="replace")
            raise AssertionError(f"{method} {path}: {exc}\n{log[-6000:]}") from exc

    def ask(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        req.add_header("Authorization", f"token {TOKEN}")
        with urllib.request.urlopen(req, timeout=ANSWER_WITHIN) as answer:
            text = answer.read()
        return json.loads(text) if text else None

    def notebook(self, page: str) -> dict[str, Any]:
        model: dict[str, Any] = self.request("GET", f"/api/contents/{page}?type=notebook")
        assert model["type"] == "notebook"
        return model

    def save(self, page: str, nb: dict[str, Any]) -> dict[str, Any]:
        body = {"type": "notebook", "format": "json", "content": nb}
        saved: dict[str, Any] = self.request("PUT", f"/api/contents/{page}", body)
        return saved


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    book_dir = tmp_path_factory.mktemp("lab") / "book"
    book_dir.mkdir()
    book = copy_shipped(book_dir, ("chapter_builders-guide", "d2l", "img"), link_envs=True)
    port = _free_port()
    command = [sys.executable, "-m", "polybook", "lab", "--root", str(book), "--tab", "jax"]
    command += ["--port", str(port), "--no-browser", f"--IdentityProvider.token={TOKEN}"]
    command += ["--allow-root"]
    log = open(book.parent / "lab.log", "wb")  # noqa: SIM115
    environ = {**os.environ, "JUPYTER_DATA_DIR": str(book.parent / "jupyter-data")}
    server = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=environ
    )
    found = Lab(f"http://127.0.0.1:{port}", book)
    try:
        deadline = time.monotonic() + 600  # its first start installs JupyterLab
        while True:  # until the server answers (or has stopped)
            try:
                found.ask("GET", "/api/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((book.parent / "lab.log").read_text()) from None
                time.sleep(0.2)
        yield found
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def test_the_four_framework_kernels_are_listed_by_display_name(lab: Lab) -> None:
    specs = lab.request("GET", "/api/kernelspecs")
    assert specs["default"] == "polybook-jax"  # --tab jax: pages open with it
    names = {k: v["spec"]["display_name"] for k, v in specs["kernelspecs"].items()}
    assert names == {
        "polybook-pytorch": "Python 3 (PyTorch)",
        "polybook-mxnet": "Python 3 (MXNet)",
        "polybook-jax": "Python 3 (JAX)",
        "polybook-tensorflow": "Python 3 (TensorFlow)",
    }


@pytest.mark.parametrize("page", PAGES)
def test_every_page_of_the_shipped_book_round_trips_byte_identical(lab: Lab, page: str) -> None:
    original = (REPO / page).read_bytes()
    model = lab.notebook(page)
    nb = model["content"]
    fences = original.decode().count("```{.python .input}")
    assert sum(c["cell_type"] == "code" for c in nb["cells"]) == fences
    assert nb["metadata"]["kernelspec"]["name"] == "polybook-jax"
    saved = lab.save(page, nb)
    assert saved["type"] == "notebook"
    assert (lab.book / page).read_bytes() == original
    assert not list(lab.book.rglob(".ipynb_checkpoints"))  # checkpoints live under _build/
    # Signatures stay in memory: nothing in the user's Jupyter data (here, the test's).
    assert not list((lab.book.parent / "jupyter-data").glob("nbsignatures*"))


def test_an_edit_to_one_cell_changes_only_its_lines_and_outputs_stay_out(lab: Lab) -> None:
    page = "chapter_builders-guide/use-gpu.md"
    before = (lab.book / page).read_text(encoding="utf-8").split("\n")
    nb = lab.notebook(page)["content"]
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    code[2]["source"] += "\nprint('edited')"
    code[3]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "OUTPUT-TEXT\n"}]
    code[3]["execution_count"] = 7
    lab.save(page, nb)
    after = (lab.book / page).read_text(encoding="utf-8")
    assert "OUTPUT-TEXT" not in after
    diff = [d for d in difflib.ndiff(before, after.split("\n")) if d[:1] in "+-"]
    assert diff == ["+ print('edited')"]
    assert not list((lab.book / "chapter_builders-guide").glob(".*.pbtmp"))


class Kernel:
    """One kernel session, run through the server's WebSocket channels as a front end runs
    it: with a session id, and only once the kernel answered a ``kernel_info`` request."""

    def __init__(self, lab: Lab, path: str) -> None:
        body = {"path": path, "type": "notebook", "name": "", "kernel": {"name": "polybook-jax"}}
        self.lab = lab
        self.session = lab.request("POST", "/api/sessions", body)
        self.session_id = uuid.uuid4().hex
        kernel_id = self.session["kernel"]["id"]
        self.url = lab.url.replace("http", "ws") + f"/api/kernels/{kernel_id}/channels"
        self.url += f"?session_id={self.session_id}"
        self.socket = self._connect()
        self._ready()

    def _connect(self) -> websocket.WebSocket:
        header = [f"Authorization: token {TOKEN}"]
        return websocket.create_connection(self.url, header=header, timeout=ANSWER_WITHIN)

    def _ready(self) -> None:
        """Ask for ``kernel_info`` until the answer comes, on a new connection after each
        silence of READY_WAIT: a server once held a first connection's answers back until a
        second connection came (a front end reconnects too)."""
        deadline = time.monotonic() + ANSWER_WITHIN
        while True:
            msg_id = self._send("kernel_info_request", {})
            try:
                for msg in self._messages(min(deadline, time.monotonic() + READY_WAIT)):
                    if msg["msg_type"] == "kernel_info_reply" and _parent(msg) == msg_id:
                        return
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
            self.socket.close()
            self.socket = self._connect()

    def _send(self, kind: str, content: dict[str, Any]) -> str:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": kind, "session": self.session_id}
        header |= {"username": "test", "version": "5.3", "date": ""}
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content}
        self.socket.send(json.dumps({**message, "channel": "shell"}))
        return msg_id

    def _messages(self, deadline: float) -> Iterator[dict[str, Any]]:
        """The messages that come until ``deadline``, then an AssertionError with the
        server's log (the server's pings would keep a plain socket timeout from firing)."""
        while True:
            left = deadline - time.monotonic()
            stop = threading.Timer(max(left, 0.0), self.socket.abort)
            stop.start()
            try:
                text = self.socket.recv()
            except (websocket.WebSocketException, OSError) as exc:
                log = (self.lab.book.parent / "lab.log").read_text(errors="replace")
                raise AssertionError(f"no answer from the kernel: {exc}\n{log[-6000:]}") from exc
            finally:
                stop.cancel()
            yield json.loads(text)

    def run(self, code: str) -> tuple[str, str, str]:
        """(stdout, the result's text, stderr and errors) of running ``code``."""
        content = {"code": code, "silent": False, "store_history": True, "allow_stdin": False}
        msg_id = self._send("execute_request", {**content, "user_expressions": {}})
        out: list[str] = []
        result: list[str] = []
        err: list[str] = []
        replied = idle = False
        for msg in self._messages(time.monotonic() + ANSWER_WITHIN):
            if _parent(msg) != msg_id:
                continue
            kind, body = msg["msg_type"], msg["content"]
            if kind == "stream":
                (out if body["name"] == "stdout" else err).append(body["text"])
            elif kind == "execute_result":
                result.append(body["data"]["text/plain"])
            elif kind == "error":
                err.append(f"{body['ename']}: {body['evalue']}\n" + "\n".join(body["traceback"]))
            elif kind == "status" and body["execution_state"] == "idle":
                idle = True
            elif kind == "execute_reply":
                replied = True
            if replied and idle:
                break
        return "".join(out), "".join(result), "".join(err)

    def close(self) -> None:
        self.socket.close()
        self.lab.request("DELETE", f"/api/sessions/{self.session['id']}")


def _parent(msg: dict[str, Any]) -> str:
    return str(msg.get("parent_header", {}).get("msg_id", ""))


@pytest.fixture(scope="module")
def jax(lab: Lab) -> Iterator[Kernel]:
    kernel = Kernel(lab, "chapter_builders-guide/use-gpu.md")
    try:
        yield kernel
    finally:
        kernel.close()


def test_in_the_jax_kernel_only_cells_for_jax_run(jax: Kernel) -> None:
    out, _, _ = jax.run("%%tab pytorch\nran = 'pytorch'")
    assert out == "[%%tab pytorch: not run in the jax kernel]\n"
    assert jax.run("%%tab jax\nran = 'jax'\nran")[1] == "'jax'"
    assert jax.run("%%tab pytorch, jax\nboth = 1\nboth")[1] == "1"
    assert jax.run("%%tab all\nran")[1] == "'jax'"
    _, _, err = jax.run("%%tab jaxx\nran = 'typo'")
    assert "%%tab names 'jaxx', not a framework" in err
    assert jax.run("ran")[1] == "'jax'"


def test_tab_selected_answers_for_the_kernels_framework_by_the_builds_rules(jax: Kernel) -> None:
    assert jax.run("tab.selected('jax')")[1] == "True"
    assert jax.run("tab.selected(['pytorch', 'mxnet'])")[1] == "False"
    chain = "if tab.selected('pytorch'):\n    which = 'pt'\nelif tab.selected('jax'):\n"
    chain += "    which = 'jax'\nelse:\n    which = 'other'\nwhich"
    assert jax.run(chain)[1] == "'jax'"
    # A cell the build rejects runs as written, with the build's message.
    _, result, err = jax.run("if tab.selected('jax') and len('x') > 0:\n    mixed = True\nmixed")
    assert result == "True"
    assert "mixes tab.selected() with other names" in err
    # Dropped branches leave blank lines: a traceback names the cell's own line.
    _, _, err = jax.run("if tab.selected('mxnet'):\n    pass\nelse:\n    pass\n1 / 0")
    assert "ZeroDivisionError" in err
    assert "line 5" in strip_ansi(err)


def test_d2l_is_the_books_and_a_rerun_save_cell_updates_it(jax: Kernel, lab: Lab) -> None:
    _, result, err = jax.run("from d2l import jax as d2l\nd2l.__file__")
    assert result == repr(str(lab.book / "d2l" / "jax.py")), err
    assert jax.run("d2l.try_gpu.__name__")[1] == "'try_gpu'"
    saved = "%%tab jax\ndef try_gpu(i=0):  #@save\n    return f'edited {i}'\n\nhelper = 1"
    assert jax.run(saved)[2] == ""
    assert jax.run("d2l.try_gpu(3)")[1] == "'edited 3'"
    assert jax.run("hasattr(d2l, 'helper')")[1] == "False"  # not marked #@save
    assert (lab.book / "d2l" / "jax.py").read_text().count("edited") == 0


def test_a_page_opens_as_a_notebook_in_jupyterlab(lab: Lab, tmp_path: Path) -> None:
    page = "chapter_builders-guide/use-gpu.md"
    before = (lab.book / page).read_bytes()
    with browser_context(width=1280, height=900) as ctx:
        tab = ctx.new_page()
        tab.goto(f"{lab.url}/lab/tree/{page}?token={TOKEN}")
        status = tab.locator("#jp-main-statusbar")
        # 46 cells: 28 code cells and the text between them (Lab renders only those in view).
        status.get_by_text("Cell 1/46").wait_for(timeout=60_000)
        status.get_by_text("Python 3 (JAX) | Idle").wait_for(timeout=120_000)
        assert "Python 3 (JAX)" in tab.locator(".jp-NotebookPanel-toolbar").inner_text()
        tab.locator(".jp-CodeCell").nth(2).scroll_into_view_if_needed()
        tab.screenshot(path=str(tmp_path / "lab-use-gpu.png"))
    assert (lab.book / page).read_bytes() == before
