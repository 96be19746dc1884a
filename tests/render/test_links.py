"""No dead link: every internal link and anchor of a built site resolves (the shipped book's,
and a book with planted dead links, each located at its line, failing ``--strict``);
``polybook linkcheck`` asks for external links where there is a network (a server on
127.0.0.1 stands for the web) and skips them with a note where there is none (a network
namespace of its own, without even a loopback, stands for an offline machine); and
``[html] base_url`` gives a sitemap and canonical URLs.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.render.names import MAP_SUFFIX
from polybook.site import links
from polybook.site.linkcheck import check_urls
from polybook.site.links import SiteIndex, check_links, dead_reason, locate, read_page, site_files

from ..books import Collect, build, pages_book

SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
CONFIG = "[project]\nname = links\ntitle = Links\n\n[build]\ntabs = pytorch\n"
PAGES = {
    "one": "A link to [two](two.md), to [its section](two.md#a-section)\n"
    "and to [the top](#one).\n\n"
    'Raw HTML: <a href="nowhere.html">a page that is not there</a>.\n\n'
    '<a href="two.html#no-such-anchor">An anchor that is not there</a>.\n',
    "two": "## A section\n\nText.\n",
}


# ---- reading a page and resolving its links ----------------------------------------------


def test_a_page_gives_its_anchors_and_links_not_those_of_scripts_comments_or_code() -> None:
    page = read_page(
        '<html><head><link rel="stylesheet" href="_static/a.css?v=1">'
        '<script src="_static/b.js"></script><script>x = \'<a href="js.html">\'</script>'
        '<style>a[href="css.html"] {}</style></head><body id="top">'
        '<!-- <a href="comment.html"> --><h2 id="sec-1">S</h2><a name="old"></a>'
        '<a href=\'single.html?x=1&amp;y=2#f\'>q</a><img src="../_images/p.png" alt="">'
        '<pre><span class="s1">&#39;&lt;img src="code.png"&gt;&#39;</span></pre>'
        "<a class=x href=unquoted.html>t</a></body></html>"
    )
    assert page.anchors == frozenset({"top", "sec-1", "old"})
    assert page.links == (
        "_static/a.css?v=1",
        "_static/b.js",
        "single.html?x=1&y=2#f",
        "../_images/p.png",
        "unquoted.html",
    )


# Tags and text as pages of formulas hold them: drawings' paths (whose data is skipped
# unread), anchors and links, comments, quotes.
PIECES = ['<path d="M0 0L1 1"', '<path d="', "/>", "<path", ' d="x"', ' id="p"', ' href="a.html"']
PIECES += ['<a href="b.html#c">', "</a>", '<span id="s">', "<!--", "-->", '"', ">", " ", "src="]
PIECES += ['<svg><g stroke="currentColor">', "</g></svg>", "<script>", "</script>", "h"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_a_page_read_past_its_path_data_gives_what_a_whole_read_gives(text: str) -> None:
    whole = links.PATH_DATA
    try:
        links.PATH_DATA = re.compile("(?!)")  # matches nothing: every tag read whole
        expected = read_page(text)
    finally:
        links.PATH_DATA = whole
    assert read_page(text) == expected


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site of two pages, an image, a notebook and a folder with an index."""
    html = tmp_path / "book" / "_build" / "html"
    for name, body in {
        "index.html": '<h1 id="top">I</h1>',
        "chap/a.html": '<h2 id="sec">A</h2><span id="x"></span>',
        "chap/sub/index.html": "<p>sub</p>",
        "_images/p.png": "",
        "_notebooks/pytorch/chap/a.ipynb": "{}",
        "_pdf/links-pytorch.pdf": "",
    }.items():
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        (html / name).write_text(body, encoding="utf-8")
    return html


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("a.html#sec", ""),
        ("a.html?tab=jax#x", ""),
        ("#sec", ""),
        ("#", ""),
        ("../_images/p.png", ""),
        ("../_notebooks/pytorch/chap/a.ipynb", ""),
        ("../_pdf/links-pytorch.pdf#page=2", ""),  # no anchors to check in a PDF
        ("sub/", ""),
        ("../index.html#top", ""),
        ("b.html", "no such file in the site"),
        ("a.html#nope", "a.html has no anchor #nope"),
        ("#nope", "a.html has no anchor #nope"),
        ("../../outside.html", "it leads outside the site"),
        ("../_images/q.png", "no such file in the site"),
        ("sub/missing/", "no such file in the site"),
    ],
)
def test_a_link_resolves_to_a_file_and_anchor_of_the_site(
    site: Path, link: str, reason: str
) -> None:
    index = SiteIndex(site, site.parent / "links.json")
    assert dead_reason(index, site_files(site), "chap/a.html", link) == reason


def test_the_pages_read_are_kept_until_they_change(site: Path) -> None:
    cache = site.parent / "links.json"
    (site / "chap" / "a.html").write_text('<a href="../index.html#gone">x</a>', encoding="utf-8")
    root = site.parent.parent
    [dead] = check_links(root, site, site.parent / "site_src", cache)
    assert (dead.page, dead.link) == ("chap/a.html", "../index.html#gone")
    assert dead.diagnostic.location.path == "_build/html/chap/a.html"  # not a page of the book
    assert json.loads(cache.read_text())["index.html"]["anchors"] == ["top"]
    (site / "index.html").write_text('<h1 id="gone">I</h1>', encoding="utf-8")  # fixed
    assert check_links(root, site, site.parent / "site_src", cache) == []


def test_a_large_sites_pages_are_read_at_once_and_kept(tmp_path: Path) -> None:
    # Enough pages that they are read by several processes.
    site, cache = tmp_path / "book" / "_build" / "html", tmp_path / "links.json"
    site.mkdir(parents=True)
    for n in range(40):
        target = "p0.html#s0" if n != 33 else "p2.html#nowhere"
        (site / f"p{n}.html").write_text(f'<h2 id="s{n}">S</h2><a href="{target}">x</a>')
    [dead] = check_links(tmp_path / "book", site, tmp_path / "src", cache)
    assert (dead.page, dead.link, dead.reason) == (
        "p33.html",
        "p2.html#nowhere",
        "p2.html has no anchor #nowhere",
    )
    kept = json.loads(cache.read_text())
    assert len(kept) == 40 and kept["p7.html"] == {
        "stamp": kept["p7.html"]["stamp"],
        "anchors": ["s7"],
        "links": ["p0.html#s0"],
    }


def test_a_dead_link_is_located_at_the_line_that_writes_it(tmp_path: Path) -> None:
    (tmp_path / "chap").mkdir()
    (tmp_path / "chap" / "a.md").write_text("# A\n", encoding="utf-8")
    srcdir = tmp_path / "site_src"
    (srcdir / "chap").mkdir(parents=True)
    myst = ["# A", "", "See [b](b.md#sec) and [c](c.md).", "", '<a href="d.html">d</a> #top']
    (srcdir / "chap" / "a.md").write_text("\n".join(myst), encoding="utf-8")
    (srcdir / "chap" / f"a{MAP_SUFFIX}").write_text(json.dumps([1, 2, 7, 8, 12]))
    where = {
        link: locate(tmp_path, srcdir, "chap/a", link, "fallback")
        for link in ("b.html#sec", "c.html", "d.html", "#top", "e.html")
    }
    assert {link: (w.path, w.line) for link, w in where.items()} == {
        "b.html#sec": ("chap/a.md", 7),
        "c.html": ("chap/a.md", 7),
        "d.html": ("chap/a.md", 12),
        "#top": ("chap/a.md", 12),
        "e.html": ("chap/a.md", 0),  # not written there: the page
    }
    assert locate(tmp_path, srcdir, "api/jax", "x.html", "fallback").path == "fallback"


# ---- external links ----------------------------------------------------------------------


class _Pages(BaseHTTPRequestHandler):
    """``/ok``: 200; ``/no-head``: 405 to HEAD, 200 to GET; ``/guarded``: 403; else 404."""

    def do_HEAD(self) -> None:
        codes = {"/ok": 200, "/no-head": 405, "/guarded": 403}
        self.send_response(codes.get(self.path, 404))
        self.end_headers()

    def do_GET(self) -> None:
        codes = {"/ok": 200, "/no-head": 200, "/guarded": 403}
        self.send_response(codes.get(self.path, 404))
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    """A web server on 127.0.0.1; its address."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_external_links_are_asked_for(server: str) -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), _Pages) as closed:
        gone = f"http://127.0.0.1:{closed.server_address[1]}/ok"  # nothing listens there
    urls = [f"{server}/ok", f"{server}/no-head", f"{server}/guarded", f"{server}/missing", gone]
    outcomes, offline = check_urls(urls, timeout=5)
    assert offline == 0
    assert [o.status for o in outcomes] == ["ok", "ok", "guarded", "broken", "unreachable"]
    assert outcomes[3].detail.startswith("HTTP 404")


def _offline(*command: str) -> subprocess.CompletedProcess[str]:
    """``command`` in a network namespace of its own: no interface, not even loopback."""
    unshare = shutil.which("unshare")
    assert unshare, "the offline tests need util-linux's unshare (Debian: util-linux)"
    return subprocess.run(
        [unshare, "--net", "--map-root-user", *command],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_without_a_network_external_links_are_skipped() -> None:
    script = (
        "from polybook.site.linkcheck import check_urls\n"
        "outcomes, hosts = check_urls(['https://example.org/a', 'https://pypi.org/b'], 5)\n"
        "print(hosts, [(o.status, o.detail) for o in outcomes])\n"
    )
    done = _offline(sys.executable, "-c", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2 [('skipped', 'no network'), ('skipped', 'no network')]"


# ---- built books -------------------------------------------------------------------------


def _logged(root: Path, *options: str) -> tuple[int, list[str]]:
    """``polybook build html OPTIONS`` on ``root``: its status and what it logged."""
    collect = Collect()
    logger = logging.getLogger("polybook")
    logger.addHandler(collect)
    try:
        return build(root, "html", *options), collect.messages
    finally:
        logger.removeHandler(collect)


@pytest.mark.slow
def test_the_shipped_books_site_has_no_dead_link(shipped_site: Path, tmp_path: Path) -> None:
    html = shipped_site / "_build" / "html"
    srcdir = shipped_site / "_build" / "site_src"
    assert check_links(shipped_site, html, srcdir, tmp_path / "links.json") == []
    index = SiteIndex(html, tmp_path / "links.json")
    names = [p.relative_to(html).as_posix() for p in html.rglob("*.html")]
    links = {link for name in names for link in index.read(name).links}
    # Every kind of target is there: anchors, notebooks, epubs, API pages, references.
    for kind in ("#", "_notebooks/", "_epub/", "api/", "references.html", "genindex.html"):
        assert any(kind in link for link in links), kind


@pytest.mark.slow
def test_a_dead_link_fails_a_strict_build_at_its_line(tmp_path: Path) -> None:
    root = pages_book(tmp_path / "book", PAGES, CONFIG)
    status, logged = _logged(root)
    assert status == 0  # warnings
    dead = [message for message in logged if "[polybook.site.link]" in message]
    assert dead == [
        "one.md:6: dead link nowhere.html: no such file in the site [polybook.site.link]",
        "one.md:8: dead link two.html#no-such-anchor: two.html has no anchor #no-such-anchor"
        " [polybook.site.link]",
    ]  # the links that resolve are not reported
    assert _logged(root, "--strict")[0] == 1
    page = root / "one.md"
    text = page.read_text().replace("nowhere.html", "two.html")
    page.write_text(text.replace("#no-such-anchor", "#a-section"), encoding="utf-8")
    status, logged = _logged(root, "--strict")
    assert status == 0 and not [m for m in logged if "site.link" in m]


@pytest.mark.slow
def test_linkcheck_reports_a_broken_external_link_at_its_line(
    tmp_path: Path, server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = {"one": f"[Up]({server}/ok), and\n[down]({server}/missing).\n"}
    root = pages_book(tmp_path / "book", pages, CONFIG)
    assert build(root, "html") == 0
    capsys.readouterr()
    from polybook.commands.cli import main

    assert main(["--root", str(root), "linkcheck"]) == 1
    err = capsys.readouterr().err
    assert f"one.md:4: broken link {server}/missing: HTTP 404" in err
    assert f"{server}/ok" not in err


@pytest.mark.slow
def test_linkcheck_without_a_network_builds_and_skips_with_a_note(tmp_path: Path) -> None:
    pages = {"one": "[PyTorch](https://pytorch.org/) and [JAX](https://jax.dev/).\n"}
    root = pages_book(tmp_path / "book", pages, CONFIG)
    done = _offline(sys.executable, "-m", "polybook", "--root", str(root), "linkcheck")
    assert done.returncode == 0, done.stderr
    assert "no network here" in done.stderr and "external links not checked" in done.stderr
    assert (root / "_build" / "html" / "one.html").is_file()  # it built the site first


@pytest.mark.slow
def test_a_published_site_has_a_sitemap_and_canonical_urls(tmp_path: Path) -> None:
    config = CONFIG + "\n[html]\nbase_url = https://example.org/links\n"
    root = pages_book(tmp_path / "book", {"one": "One.\n", "two": "Two.\n"}, config)
    assert build(root, "html") == 0
    html = root / "_build" / "html"
    sitemap = ElementTree.parse(html / "sitemap.xml").getroot()
    listed = {str(loc.text) for loc in sitemap.iter(f"{{{SITEMAP}}}loc")}
    base = "https://example.org/links/"
    assert {f"{base}index.html", f"{base}one.html", f"{base}two.html"} <= listed
    canonical = BeautifulSoup((html / "one.html").read_text(), "html.parser").find(
        "link", rel="canonical"
    )
    assert canonical is not None and canonical["href"] == f"{base}one.html"
    plain = pages_book(tmp_path / "plain", {"one": "One.\n"}, CONFIG)
    assert build(plain, "html") == 0
    assert not (plain / "_build" / "html" / "sitemap.xml").exists()
    assert 'rel="canonical"' not in (plain / "_build" / "html" / "one.html").read_text()


def _processes_naming(text: str) -> list[str]:
    """The command lines of the running processes that name ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in command:
            found.append(command)
    return found


@pytest.mark.slow
def test_sphinx_and_the_processes_its_extensions_start_end_with_each_build(
    tmp_path: Path,
) -> None:
    config = CONFIG + "\n[html]\nbase_url = https://example.org/links\n"  # sphinx-sitemap
    root = pages_book(tmp_path / "book", {"one": "One.\n"}, config)
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), "build", "html"]

    def build_in_a_process() -> None:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr

    build_in_a_process()  # Sphinx run to the end
    (root / "config.ini").write_text(config.replace("Links", "Links 2"), encoding="utf-8")
    build_in_a_process()  # an early Sphinx started, then stopped unused: new settings
    (root / "one.md").write_text("# one\n\nOne, edited.\n", encoding="utf-8")
    build_in_a_process()  # the early Sphinx runs
    assert _processes_naming(str(root)) == []


def test_a_second_check_in_the_process_reads_the_changed_pages_and_those_linking_to_them(
    tmp_path: Path,
) -> None:
    # As serve's rebuilds check the site: one page rewritten, the others as they were.
    site, cache = tmp_path / "book" / "_build" / "html", tmp_path / "links.json"
    site.mkdir(parents=True)
    for n in range(40):
        target = "p0.html#s0" if n != 5 else "p6.html#s6"
        (site / f"p{n}.html").write_text(f'<h2 id="s{n}">S</h2><a href="{target}">x</a>')
    assert check_links(tmp_path / "book", site, tmp_path / "src", cache) == []
    checked = links._CHECKED[str(site)]
    assert checked.targets["p5.html"] == {"p6.html"}
    (site / "p6.html").write_text('<h2 id="s6">S</h2><p>Edited.</p><a href="p0.html#s0">x</a>')
    files = site_files(site)
    index = SiteIndex(site, cache)
    stamps = {name: index.stamp(name) for name in links.site_pages(files)}
    assert links._recheck(checked, files, stamps, index) == {"p6.html"}  # its anchors stay
    assert check_links(tmp_path / "book", site, tmp_path / "src", cache) == []
    checked = links._CHECKED[str(site)]
    (site / "p6.html").write_text('<h2 id="moved">S</h2><a href="p0.html#s0">x</a>')
    index = SiteIndex(site, cache)
    stamps = {name: index.stamp(name) for name in links.site_pages(files)}
    assert links._recheck(checked, files, stamps, index) == {"p5.html", "p6.html"}
    [dead] = check_links(tmp_path / "book", site, tmp_path / "src", cache)
    assert (dead.page, dead.reason) == ("p5.html", "p6.html has no anchor #s6")
    (site / "new.html").write_text("<p>A page more</p>")  # files came: every page again
    again = links._recheck(links._CHECKED[str(site)], site_files(site), stamps, index)
    assert again == set(stamps)
    assert [d.page for d in check_links(tmp_path / "book", site, tmp_path / "src", cache)] == [
        "p5.html"
    ]
