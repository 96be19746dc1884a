"""Live preview for authors: ``polybook serve``.

Builds the site, serves ``_build/html`` on 127.0.0.1 only (the configured port, else the
first free one from 8000), watches the book's pages, configuration, figures, static files,
bibliography and library with watchfiles, rebuilds on save (through the execution cache: a
prose edit runs no notebook) and reloads the open pages. Pages get a small script that
listens to a server-sent events endpoint; the files on disk are left as built. Nothing
outside the site is served.
"""

from __future__ import annotations

import hashlib
import io
import logging
import queue
import sys
import threading
from collections.abc import Callable, Iterable
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import watchfiles

from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError

logger = logging.getLogger("polybook")
HOST = "127.0.0.1"
FIRST_PORT = 8000
PORTS_TRIED = 100
EVENTS = "/_polybook/events"
KEEPALIVE = 15.0  # seconds between comments on an idle event stream
RELOAD_SCRIPT = (
    "<script>(function () {"
    f" const events = new EventSource('{EVENTS}');"
    " events.onmessage = (e) => { if (e.data === 'reload') window.location.reload(); };"
    " window.pbLiveReload = events;"
    " })();</script>"
).encode()
Changes = set[tuple[watchfiles.Change, str]]


class Reloads:
    """A build counter that the event streams wait on."""

    def __init__(self) -> None:
        self.generation = 0
        self.stopping = False
        self._changed = threading.Condition()

    def bump(self) -> None:
        with self._changed:
            self.generation += 1
            self._changed.notify_all()

    def stop(self) -> None:
        with self._changed:
            self.stopping = True
            self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        with self._changed:
            self._changed.wait_for(lambda: self.generation != seen or self.stopping, timeout)
            return self.generation


def _handler(site: Path, reloads: Reloads) -> type[SimpleHTTPRequestHandler]:
    root = site.resolve()

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("serve: " + format, *args)

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] == EVENTS:
                self._events()
            else:
                super().do_GET()

        def send_head(self) -> Any:
            target = Path(self.translate_path(self.path)).resolve()
            if not target.is_relative_to(root):  # a link out of the site
                self.send_error(HTTPStatus.NOT_FOUND)
                return None
            if target.is_dir() and not (target / "index.html").is_file():
                self.send_error(HTTPStatus.NOT_FOUND)  # no folder listings
                return None
            if target.suffix != ".html" or not target.is_file():
                return super().send_head()
            body = target.read_bytes()
            at = body.rfind(b"</body>")
            body = body[:at] + RELOAD_SCRIPT + body[at:] if at >= 0 else body + RELOAD_SCRIPT
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return io.BytesIO(body)

        def _events(self) -> None:
            seen = reloads.generation  # before the page learns that it listens
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            while not reloads.stopping:
                now = reloads.wait(seen, KEEPALIVE)
                message = b"data: reload\n\n" if now != seen else b": idle\n\n"
                seen = now
                try:
                    self.wfile.write(message)
                    self.wfile.flush()
                except OSError:  # the page went away
                    return

    return Handler


def bind(site: Path, reloads: Reloads, port: int) -> ThreadingHTTPServer:
    """A server on 127.0.0.1: on ``port``, or with 0 the first free one from 8000."""
    handler = _handler(site, reloads)
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
    """(folders watched with their sub-folders, folders watched alone): the book's pages,
    config.ini, resources, static files, library files and configured files."""
    root = config.root
    deep: set[Path] = set()
    pages = (p for pattern in config.notebooks for p in root.glob(pattern) if p.is_file())
    for path in pages:
        relative = path.relative_to(root)
        if len(relative.parts) > 1 and not relative.parts[0].startswith(("_", ".")):
            deep.add(root / relative.parts[0])
    deep.update(root / r.strip("/") for r in config.resources if (root / r).is_dir())
    deep.update(p for p in [root / "static"] if p.is_dir())
    libraries = [root / config.library_for(fw).lib_file for fw in config.tabs]
    shallow = {root, *(p.parent for p in libraries)}
    shallow.update(Path(f).parent for f in (config.bibfile, config.favicon, config.html_logo) if f)
    shallow = {p for p in shallow if p.is_dir() and not any(p.is_relative_to(d) for d in deep)}
    return sorted(deep), sorted(shallow)


def _digests(paths: Iterable[Path]) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "" for p in paths
    }


class Preview:
    """The server, the watchers and the rebuilds of one ``polybook serve``."""

    def __init__(self, config: BookConfig, rebuild: Callable[[], int], port: int = 0) -> None:
        self.config = config
        self.rebuild = rebuild
        self.reloads = Reloads()
        self.stopped = threading.Event()
        self.changes: queue.Queue[Changes] = queue.Queue()
        self.built: dict[str, str] = {}  # library files as the last build left them
        self.serving = False
        self.server = bind(config.layout.html, self.reloads, port or config.serve_port)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def _libraries(self) -> list[Path]:
        return [self.config.root / self.config.library_for(fw).lib_file for fw in self.config.tabs]

    def build(self) -> int:
        """Rebuild; an error (a bad config.ini, say) is shown, and the last site stays."""
        try:
            code = self.rebuild()
        except PolybookError as err:
            print(f"polybook: {err}", file=sys.stderr)
            code = 1
        self.built = _digests(self._libraries())
        return code

    def start(self) -> None:
        """Serve, and watch (in threads of their own); the first build must have run."""
        self.serving = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        deep, shallow = watched(self.config)
        for paths, recursive in ((deep, True), (shallow, False)):
            if paths:
                args = (paths, recursive)
                threading.Thread(target=self._watch, args=args, daemon=True).start()

    def _watch(self, paths: list[Path], recursive: bool) -> None:
        build = self.config.build_dir.resolve()

        def wanted(change: watchfiles.Change, path: str) -> bool:
            return watchfiles.DefaultFilter()(change, path) and not Path(path).is_relative_to(build)

        for batch in watchfiles.watch(
            *paths, watch_filter=wanted, recursive=recursive, stop_event=self.stopped
        ):
            self.changes.put(batch)

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
            paths = self._relevant(batch)
            if paths:
                logger.info("changed: %s: rebuilding", ", ".join(paths))
                self.build()
                self.reloads.bump()

    def stop(self) -> None:
        self.stopped.set()
        self.changes.put(set())  # wakes run()
        self.reloads.stop()
        if self.serving:
            self.server.shutdown()
        self.server.server_close()


def serve(config: BookConfig, rebuild: Callable[[], int], port: int = 0) -> int:
    """Build, serve and rebuild until Ctrl-C; the exit status of the first build if it failed
    before anything was served."""
    preview = Preview(config, rebuild, port)
    preview.build()
    if not (config.layout.html / "index.html").is_file():
        preview.stop()
        return 1
    preview.start()
    print(f"polybook: serving {preview.url} (Ctrl-C stops)", flush=True)
    try:
        preview.run()
    except KeyboardInterrupt:
        pass
    finally:
        preview.stop()
    return 0
