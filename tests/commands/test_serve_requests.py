"""What ``polybook serve`` answers a request, each check without a server or a build: the
Host a request must name, the event stream's address, nothing out of the site, no folder
listings, every HTML page (whatever its address) with the reload script."""

from __future__ import annotations

from http import HTTPStatus
from pathlib import Path

import pytest

from polybook.commands.live import EVENTS, TAKEN, BuildState
from polybook.commands.serve_requests import (
    host_allowed,
    is_events,
    page_frame,
    served,
    taken,
    with_script,
)


def test_a_request_must_name_this_server_with_its_port() -> None:
    for host in ("127.0.0.1:8003", "localhost:8003", " LocalHost:8003 ", "127.0.0.1:8003\t"):
        assert host_allowed(host, 8003), host
    refused = ["evil.example:8003", "evil.example", "127.0.0.1.evil.example:8003", "", " "]
    refused += ["127.0.0.1:8004", "localhost:8004", "127.0.0.1", "localhost", "127.0.0.1:80033"]
    refused += ["localhost:8003.evil.example", "[::1]:8003", "0.0.0.0:8003"]
    for host in refused:
        assert not host_allowed(host, 8003), host


def test_the_event_stream_is_its_own_address_with_any_query() -> None:
    assert is_events(EVENTS) and is_events(f"{EVENTS}?since=3") and is_events(f"{EVENTS}?a?b")
    for path in (f"{EVENTS}/", f"/x{EVENTS}", EVENTS.upper(), "/", f"/?{EVENTS}", ""):
        assert not is_events(path), path


def test_a_page_s_report_names_the_build_it_shows() -> None:
    assert taken(f"{TAKEN}?built=3") == 3 and taken(f"{TAKEN}?built=0") == 0
    for path in (TAKEN, f"{TAKEN}?built=", f"{TAKEN}?built=-1", f"{TAKEN}?built=x", EVENTS):
        assert taken(path) is None, path
    assert taken(f"{TAKEN}?seen=3") is None and taken(f"/x{TAKEN}?built=3") is None
    assert taken(f"{TAKEN}?built=" + "9" * 40) is None  # no number without bound


def test_a_build_s_last_steps_wait_for_the_open_pages_only() -> None:
    state = BuildState()
    assert state.wait_taken(0.0)  # no page open: nothing to wait for
    state.listen(True)
    state.listen(True)
    state.publish([])
    assert not state.wait_taken(0.01)  # two pages told, none has shown the build
    state.took(0)  # a page that shows an older build
    state.took(state.built)
    assert not state.wait_taken(0.01)
    state.listen(False)  # the other page closed
    assert state.wait_taken(0.0)
    state.publish(["page.md:3: bad"])  # a failed build: the pages keep the last good one
    assert state.wait_taken(0.0)
    state.publish([])
    assert not state.wait_taken(0.01)  # a new build: each page says so again


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "html"
    for page in ("index.html", "chap/index.html", "chap/page.html", "bare/page.html"):
        (root / page).parent.mkdir(parents=True, exist_ok=True)
        (root / page).write_text("<html><body>P</body></html>")
    (root / "style.css").write_text("p {}")
    (root / "notes.htm").write_text("<p>")
    (root / "dir.html").mkdir()
    (root / "dir.html" / "index.html").write_text("<p>")
    (tmp_path / "secret.html").write_text("<p>")
    (root / "escape").symlink_to(tmp_path)  # a link out of the site
    (root / "out.html").symlink_to(tmp_path / "secret.html")
    (root / "in.html").symlink_to(root / "chap" / "page.html")
    return root.resolve()


def test_a_page_is_served_with_the_script_whatever_its_address(site: Path) -> None:
    for path, page in (
        ("/", "index.html"),
        ("/?x=1", "index.html"),
        ("/index.html", "index.html"),
        ("/chap/", "chap/index.html"),
        ("/chap/?x=/", "chap/index.html"),
        ("/chap/page.html", "chap/page.html"),
        ("/chap/page.html?v=2", "chap/page.html"),
        ("/in.html", "chap/page.html"),  # a link within the site: its target
        ("/dir.html/", "dir.html/index.html"),
    ):
        translated = site / path.split("?")[0].lstrip("/")
        assert served(site, translated, path) == site / page, path


def test_nothing_out_of_the_site_and_no_folder_listings(site: Path) -> None:
    for path, translated in (
        ("/../secret.html", site / ".." / "secret.html"),
        ("/escape/secret.html", site / "escape" / "secret.html"),
        ("/escape/", site / "escape"),
        ("/out.html", site / "out.html"),
        ("/bare/", site / "bare"),
        ("/bare", site / "bare"),
        ("/bare/?x", site / "bare"),
    ):
        assert served(site, translated, path) == HTTPStatus.NOT_FOUND, path


def test_what_is_not_a_page_is_left_to_the_server(site: Path) -> None:
    """A file as it is, a missing one (404), a folder's address without its ``/`` (the
    server's redirect to it)."""
    for path in ("/style.css", "/notes.htm", "/missing.html", "/chap", "/chap?x=/", "/dir.html"):
        translated = site / path.split("?")[0].lstrip("/")
        assert served(site, translated, path) is None, path


def test_the_script_goes_before_the_last_body_end_or_at_the_end() -> None:
    script = b"<script>S</script>"
    assert with_script(b"<body>a</body></html>", script) == b"<body>a" + script + b"</body></html>"
    twice = b"<body>a</body>b</body>"
    assert with_script(twice, script) == b"<body>a</body>b" + script + b"</body>"
    assert with_script(b"</body>", script) == script + b"</body>"
    assert with_script(b"<p>no end", script) == b"<p>no end" + script
    assert with_script(b"", script) == script


PAGE = (
    "<html><head><title>{title}</title></head><body><nav>{nav}</nav><div class='content'>"
    '<article role="main" id="main">{text}</article><footer>end</footer></div></body></html>'
)


def _frame(title: str = "T", nav: str = "N", text: str = "words") -> str:
    return page_frame(PAGE.format(title=title, nav=nav, text=text).encode())


def test_a_page_s_frame_is_what_surrounds_its_main_article() -> None:
    frame = _frame()
    assert frame and _frame(text="other words, <b>bold</b>") == frame  # only the article
    nested = "<article>inner</article> and <article><article>deeper</article></article>"
    assert _frame(text=nested) == frame  # its own articles are inside it
    for changed in (_frame(title="U"), _frame(nav="M")):
        assert changed and changed != frame
    after = PAGE.format(title="T", nav="N", text=nested).replace("end", "moved")
    assert page_frame(after.encode()) not in ("", frame)  # what follows nested articles counts


def test_a_page_without_a_whole_main_article_has_no_frame() -> None:
    for body in (
        "<html><body><p>no article</p></body></html>",
        '<html><body><main role="main"><p>a main, not an article</p></main></body></html>',
        '<html><body><article role="main"><p>never closed</body></html>',
        '<html><body><article role="main"><article>inner</article></body></html>',
    ):
        assert page_frame(body.encode()) == "", body
