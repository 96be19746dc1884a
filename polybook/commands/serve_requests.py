"""What ``polybook serve`` answers a request, decided apart from the server (so that quick
tests reach every check): whether its ``Host`` names this server, whether it asks for the
page's event stream, and which file, if any, it may have; an HTML page gets the reload
script."""

from __future__ import annotations

import hashlib
from http import HTTPStatus
from pathlib import Path

from polybook.commands.live import EVENTS, TAKEN

HOST = "127.0.0.1"
ALLOWED_HOSTS = (HOST, "localhost")  # the Host a request must name (with the port)


def host_allowed(host: str, port: int) -> bool:
    """Whether a request whose ``Host`` header is ``host`` names this server (on ``port``):
    a page of another site, its name rebound to 127.0.0.1 (DNS rebinding), names its own."""
    return host.strip().lower() in {f"{name}:{port}" for name in ALLOWED_HOSTS}


def _bare(path: str) -> str:
    return path.split("?", 1)[0]


def is_events(path: str) -> bool:
    """Whether the request's ``path`` (query and all) asks for the page's event stream."""
    return _bare(path) == EVENTS


def taken(path: str) -> int | None:
    """The build a page says it shows, where the request's ``path`` is its report
    (``/_polybook/taken?built=N``); None for any other request, or a malformed report."""
    bare, _, query = path.partition("?")
    if bare != TAKEN:
        return None
    name, _, value = query.partition("=")
    return int(value) if name == "built" and value.isdigit() and len(value) < 10 else None


def served(root: Path, translated: Path, path: str) -> Path | HTTPStatus | None:
    """What a request for ``path`` (its file ``translated`` as the server maps it, in the
    site at ``root``, resolved) gets: an error status (a link out of the site, a folder
    without a page: no listings), the HTML page to send with the reload script (``/`` and
    ``/chapter/`` the folder's page), or None: the file as the server sends it."""
    target = translated.resolve()
    if not target.is_relative_to(root):  # a link out of the site
        return HTTPStatus.NOT_FOUND
    if target.is_dir() and not (target / "index.html").is_file():
        return HTTPStatus.NOT_FOUND  # no folder listings
    if target.is_dir() and _bare(path).endswith("/"):
        target = target / "index.html"  # `/`, `/chapter/`: the page, reloaded too
    if target.suffix != ".html" or not target.is_file():
        return None
    return target


def with_script(body: bytes, script: bytes) -> bytes:
    """The page ``body`` with ``script`` before its last ``</body>`` (at its end without)."""
    at = body.rfind(b"</body>")
    return body[:at] + script + body[at:] if at >= 0 else body + script


MAIN = b'role="main"'  # the theme's article of the page's own content (furo's)


def _article(body: bytes) -> tuple[int, int] | None:
    """Where the page's main ``<article>`` starts and ends in ``body``, nested articles
    counted; None without one."""
    mark = body.find(MAIN)
    start = body.rfind(b"<article", 0, mark) if mark >= 0 else -1
    if start < 0 or body.find(b">", start) < mark:
        return None
    depth, at = 0, start
    while True:
        opened, closed = body.find(b"<article", at + 1), body.find(b"</article>", at + 1)
        if closed < 0:
            return None
        if 0 <= opened < closed:
            depth, at = depth + 1, opened
            continue
        if depth == 0:
            return start, closed + len(b"</article>")
        depth, at = depth - 1, closed


def page_frame(body: bytes) -> str:
    """What the page shows around its main article (head, navigation, contents, footer), as
    a digest: an open page whose new build has the same frame takes the new article in
    place; "" where the page has no such article (it reloads)."""
    found = _article(body)
    if found is None:
        return ""
    start, end = found
    return hashlib.sha256(body[:start] + body[end:]).hexdigest()[:16]
