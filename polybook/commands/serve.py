"""Live preview for authors: ``polybook serve``.

Builds the site, serves ``_build/html`` on 127.0.0.1 only (the configured port, else the
first free one from 8000), watches the book's pages, configuration, figures, static files,
bibliography and library with watchfiles (folders added while serving too), rebuilds on save
(through the execution cache: a prose edit runs no notebook) and updates the open pages.
A save that breaks the build leaves the last good site served, with its problems shown
over the pages (:mod:`polybook.commands.live`); the files on disk are left as built.
Nothing outside the site is served, and nothing to a request whose ``Host`` is not this
server (a page of another site that rebinds its name to 127.0.0.1 gets 403). Every HTML
page gets the reload script, whatever form its address takes (``/``, ``/chapter/``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import queue
import threading
from collections.abc import Callable, Iterable
from fnmatch import fnmatch
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from typing import Any, cast

import watchfiles

from polybook.commands import serve_requests
from polybook.commands.live import BuildState, page_script
from polybook.commands.serve_requests import HOST
from polybook.config import BookConfig, load_config
from polybook.diagnostics import Location, PolybookError, Reporter

logger = logging.getLogger("polybook")
FIRST_PORT = 8000
PORTS_TRIED = 100
KEEPALIVE = 15.0  # seconds between comments on an idle event stream
# Seconds a build's last steps wait, once its pages are out, for the open pages to show them.
SHOWN_WAIT = 0.5
WATCH_TICK = 250  # milliseconds a watcher waits for changes before it looks up again
# Milliseconds of quiet after a change before the changes go to a build: an editor's save
# (a temporary file written, then renamed) takes a millisecond or two.
WATCH_QUIET = 10
WATCH_READY = 10.0  # seconds a new watcher may take to set up
Changes = set[tuple[watchfiles.Change, str]]
READY = "polybook: ready: each save rebuilds the site"  # after the first build
# A build whose problems go to the reporter; it calls the function it is given once the
# pages are written, where nothing can fail it any more (the open pages take them then).
Rebuild = Callable[[Reporter, Callable[[], None]], int]


def _handler(site: Path, state: BuildState) -> type[SimpleHTTPRequestHandler]:
    root = site.resolve()

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("serve: " + format, *args)

        def do_GET(self) -> None:
            if not self._host_allowed():
                self.send_error(HTTPStatus.FORBIDDEN, "not a host this preview serves")
            elif serve_requests.is_events(self.path):
                self._events()
            elif (built := serve_requests.taken(self.path)) is not None:
                state.took(built)
                self.send_response(HTTPStatus.NO_CONTENT)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
            else:
                super().do_GET()

        def _host_allowed(self) -> bool:
            port = cast("tuple[str, int]", self.server.server_address)[1]
            return serve_requests.host_allowed(self.headers.get("Host", ""), port)

        def send_head(self) -> Any:
            if not self._host_allowed():  # HEAD
                self.send_error(HTTPStatus.FORBIDDEN, "not a host this preview serves")
                return None
            target = serve_requests.served(root, Path(self.translate_path(self.path)), self.path)
            if isinstance(target, HTTPStatus):
                self.send_error(target)
                return None
            if target is None:
                return super().send_head()
            page = target.read_bytes()
            script = page_script(state.built, serve_requests.page_frame(page))
            body = serve_requests.with_script(page, script)
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return io.BytesIO(body)

        def _events(self) -> None:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen, message = state.version, state.message()  # the state as the page opens
            state.listen(True)
            try:
                while not state.stopping:
                    self.wfile.write(message)
                    self.wfile.flush()
                    now = state.wait(seen, KEEPALIVE)
                    message = state.message() if now != seen else b": idle\n\n"
                    seen = now
            except OSError:  # the page went away
                return
            finally:
                state.listen(False)

    return Handler


def bind(site: Path, state: BuildState, port: int) -> ThreadingHTTPServer:
    """A server on 127.0.0.1: on ``port``, or with 0 the first free one from 8000."""
    handler = _handler(site, state)
    for candidate in [port] if port else range(FIRST_PORT, FIRST_PORT + PORTS_TRIED):
        try:
            server = ThreadingHTTPServer((HOST, candidate), handler)
        except OSError as exc:
            if port:
                message = f"cannot listen on {HOST}:{port}: {exc.strerror}"
                raise PolybookError(Location("--port"), message, "serve") from exc
            continue
        server.daemon_threads = True
        return server
    message = f"no free port from {FIRST_PORT} to {FIRST_PORT + PORTS_TRIED - 1}"
    raise PolybookError(Location(HOST), message, "serve")


def watched(config: BookConfig) -> tuple[list[Path], list[Path]]:
    """(folders watched with their sub-folders, folders watched alone): every folder at the
    book's root that may hold pages (a new one among them too), resources, static files,
    library files and configured files; the root itself, so that a new folder is seen."""
    root = config.root
    deep: set[Path] = set()
    firsts = {
        PurePosixPath(pattern).parts[0] for pattern in config.build.notebooks if "/" in pattern
    }
    for folder in root.iterdir() if root.is_dir() else ():
        hidden = folder.name.startswith(("_", "."))
        if folder.is_dir() and not hidden and any(fnmatch(folder.name, f) for f in firsts):
            deep.add(folder)
    deep.update(root / r.strip("/") for r in config.build.resources if (root / r).is_dir())
    deep.update(p for p in [root / "static"] if p.is_dir())
    libraries = [root / config.library_for(fw).lib_file for fw in config.build.tabs]
    shallow = {root, *(p.parent for p in libraries)}
    shallow.update(
        Path(f).parent
        for f in (config.project.bibfile, config.html.favicon, config.html.html_logo)
        if f
    )
    shallow = {p for p in shallow if p.is_dir() and not any(p.is_relative_to(d) for d in deep)}
    return sorted(deep), sorted(shallow)


def _digests(paths: Iterable[Path]) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "" for p in paths
    }


class Preview:
    """The server, the watchers and the rebuilds of one ``polybook serve``.

    A failed build (a bad save of ``config.ini`` or of a page, any error) leaves the last
    good site served, with the problems shown over the open pages until a build succeeds.
    The folders watched are looked at again before and after each build, so that pages and
    folders added while serving are watched too.
    """

    def __init__(self, config: BookConfig, rebuild: Rebuild, port: int = 0) -> None:
        self.config = config
        self.rebuild = rebuild
        self.state = BuildState()
        self.stopped = threading.Event()
        self.changes: queue.Queue[Changes] = queue.Queue()
        self.built: dict[str, str] = {}  # library files as the last build left them
        self.serving = False
        self.watching: tuple[list[Path], list[Path]] = ([], [])
        self.watch_stop = threading.Event()
        self.server = bind(config.layout.html, self.state, port or config.html.serve_port)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def _libraries(self) -> list[Path]:
        return [
            self.config.root / self.config.library_for(fw).lib_file for fw in self.config.build.tabs
        ]

    def build(self) -> int:
        """Rebuild; its problems are shown (on stderr and over the pages), the last site
        stays, and no error of the build stops the preview."""
        reporter = Reporter()
        out: list[bool] = []  # the pages published before the build ended

        def pages_out() -> None:  # the build's last steps wait for the open pages
            if not out:
                out.append(True)
                self.state.publish([])
                self.state.wait_taken(SHOWN_WAIT)

        try:
            code = self.rebuild(reporter, pages_out)
        except PolybookError as err:  # before the build began: config.ini, the command
            code = self._failed(reporter, err)
        except Exception as exc:  # a fault of the build itself: shown, the preview goes on
            message = f"the build failed: {type(exc).__name__}: {exc}"
            logger.debug("the build failed", exc_info=True)
            code = self._failed(
                reporter, PolybookError(Location("polybook serve"), message, "serve")
            )
        problems = [str(d) for d in reporter.errors or reporter.warnings] or ["the build failed"]
        if code or not out:
            self.state.publish(problems if code else [])
        self._reload_config()
        self.built = _digests(self._libraries())
        return code

    @staticmethod
    def _failed(reporter: Reporter, err: PolybookError) -> int:
        reporter.error(err)  # and logged
        return 1

    def _reload_config(self) -> None:
        """The configuration as the last build read it (kept when it does not load)."""
        with contextlib.suppress(PolybookError):
            self.config = load_config(self.config.root)

    def start(self) -> None:
        """Serve, and watch (in threads of their own); the first build must have run."""
        self.serving = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self._rewatch()

    def _rewatch(self) -> None:
        """Watch the folders :func:`watched` names now, if they changed."""
        wanted = watched(self.config)
        if wanted == self.watching or self.stopped.is_set():
            return
        self.watch_stop.set()  # the watchers of the old folders end
        self.watching, self.watch_stop = wanted, threading.Event()
        started = []
        for paths, recursive in ((wanted[0], True), (wanted[1], False)):
            if paths:
                ready = threading.Event()
                args = (paths, recursive, self.watch_stop, ready)
                threading.Thread(target=self._watch, args=args, daemon=True).start()
                started.append(ready)
        for ready in started:  # a save from now on is seen
            ready.wait(WATCH_READY)

    def _watch(
        self, paths: list[Path], recursive: bool, stop: threading.Event, ready: threading.Event
    ) -> None:
        build = self.config.build_dir.resolve()

        def wanted(change: watchfiles.Change, path: str) -> bool:
            return watchfiles.DefaultFilter()(change, path) and not Path(path).is_relative_to(build)

        try:
            for batch in watchfiles.watch(
                *paths,
                watch_filter=wanted,
                recursive=recursive,
                stop_event=stop,
                rust_timeout=WATCH_TICK,
                step=WATCH_QUIET,
                yield_on_timeout=True,  # the first yield: the folders are watched
            ):
                ready.set()
                if batch:
                    self.changes.put(batch)
        except Exception as exc:  # a watched folder went away: watched again after a build
            ready.set()
            logger.debug("serve: watching %s stopped: %s", paths, exc)
            if not stop.is_set():
                self.watching = ([], [])
                self.changes.put(set())

    def _relevant(self, batch: Changes) -> list[str]:
        """Changed paths, less library files that still hold what the last build wrote."""
        now = _digests(Path(p) for _, p in batch if p in self.built)
        return sorted({p for _, p in batch if p not in self.built or now[p] != self.built[p]})

    def run(self) -> None:
        """Rebuild on each batch of changes and reload the pages, until :meth:`stop`."""
        while True:
            batch = self.changes.get()
            if self.stopped.is_set():
                return
            while not self.changes.empty():
                batch |= self.changes.get_nowait()
            self._rewatch()  # a new folder: watched before it is built
            paths = self._relevant(batch)
            if paths:
                logger.info("changed: %s: rebuilding", ", ".join(paths))
                self.build()
                self._rewatch()

    def open(self) -> bool:
        """Serve, and print where. A site that an earlier build left is served at once,
        while the first build brings it up to date (a save meanwhile is built after it; the
        open pages reload when it ends); else the first build makes it first. Says when the
        first build is done (:data:`READY`). False where there is no site to serve."""
        index = self.config.layout.html / "index.html"
        built = index.is_file()
        if not built:
            self.build()
            if not index.is_file():
                return False
        self.start()
        print(f"polybook: serving {self.url} (Ctrl-C stops)", flush=True)
        if built:
            self.build()
        print(READY, flush=True)
        return True

    def stop(self) -> None:
        self.stopped.set()
        self.watch_stop.set()
        self.changes.put(set())  # wakes run()
        self.state.stop()
        if self.serving:
            self.server.shutdown()
        self.server.server_close()


def serve(config: BookConfig, rebuild: Rebuild, port: int = 0) -> int:
    """Build, serve and rebuild until Ctrl-C; the exit status of the first build if it failed
    before anything was served (see :meth:`Preview.open`)."""
    preview = Preview(config, rebuild, port)
    try:  # Ctrl-C may land as soon as the address is printed, before run() is entered
        if not preview.open():
            return 1
        preview.run()
    except KeyboardInterrupt:
        if not preview.serving:
            raise
    finally:
        preview.stop()
    return 0
