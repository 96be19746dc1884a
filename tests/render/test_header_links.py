"""d2lbook's keys that change what readers see: ``[html] header_links`` read as d2l-en writes
it (its parts left out as warnings at their lines), shown on every page of a built site with
its icons, keyboard-reachable and in the drawer on a phone; ``favicon`` and ``html_logo``
naming missing files; ``[library] version_file`` given the release."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from polybook.config import load_config
from polybook.config.schema import D2LBOOK_IGNORED, KEYS, RENAMED
from polybook.diagnostics import Reporter
from polybook.paths import node_modules

from ..books import Collect, build, libraries, pages_book, write_book
from ..browser import file_url, new_context, watch_errors

# d2l-en's shape: one link a line, each line ending with a comma but the last, placeholders
# that its scripts replace, a name that is not ASCII; a comment line inside the value.
LINKS = """[project]
name = b
release = 1.2.3

[html]
header_links = ###_ALTERNATE_VERSION_###, ###_ALTERNATE_VERSION_BASE_LINK_###, fas fa-book,
               PyTorch, ###_CURRENT_VERSION_BASE_LINK_###/b.pdf, fas fa-file-pdf,
               Notebooks, https://example.org/b.zip, fab fa-python,
# the courses
               Courses, https://courses.example.org, fas fa-user-graduate,
               GitHub, https://github.com/o/b, fab fa-github,
               中文版, https://zh.example.org, fas fa-external-link-alt
"""


def _warnings(root: Path) -> list[str]:
    return [str(d) for d in load_config(root).ignored]


def test_header_links_are_read_as_d2l_en_writes_them(tmp_path: Path) -> None:
    from polybook.site.icons import icon_name

    root = write_book(tmp_path, {}, LINKS)
    links = load_config(root).html.links
    assert [(link.name, link.url, link.icon) for link in links] == [
        ("Notebooks", "https://example.org/b.zip", "fab fa-python"),
        ("Courses", "https://courses.example.org", "fas fa-user-graduate"),
        ("GitHub", "https://github.com/o/b", "fab fa-github"),
        ("中文版", "https://zh.example.org", "fas fa-external-link-alt"),
    ]
    assert [w.split(" is a placeholder")[0] for w in _warnings(root)] == [
        "config.ini:6: [html] header_links: ###_ALTERNATE_VERSION_###",
        "config.ini:7: [html] header_links: ###_CURRENT_VERSION_BASE_LINK_###",
    ]
    assert [icon_name(link.icon) for link in links] == [
        "python",
        "graduation-cap",
        "github",
        "external-link",
    ]


MALFORMED_LINKS = (
    "[html]\nheader_links =\n    PDF, b.pdf, fas fa-file-pdf,\n    Two, items,\n"
    "    Empty, , fas fa-book,\n    A, a.html, , B, https://b.org, fab fa-github\n"
)
MISSING_FILES = (
    "[html]\nfavicon = img/icon.png\nhtml_logo = img/logo.png\n\n"
    "[library]\nversion_file = d2l/__init__.py\n"
)
WARNED = {
    "a malformed header link": (
        MALFORMED_LINKS,
        "config.ini:4: [html] header_links: 2 items in 'Two, items,': a link is `name, URL,"
        " icon` (the icon may be empty), one link a line [polybook.config]",
        "config.ini:5: [html] header_links: the link 'Empty' has no URL: it is left out"
        " [polybook.config]",
    ),
    "a missing favicon, logo or version file": (
        MISSING_FILES,
        "config.ini:2: [html] favicon: no file 'img/icon.png' in the book: the site shows"
        " polybook's icon [polybook.config]",
        "config.ini:3: [html] html_logo: no file 'img/logo.png' in the book: the site shows"
        " no logo [polybook.config]",
        "config.ini:6: [library] version_file: no file 'd2l/__init__.py' in the book: the"
        " release is written nowhere [polybook.config]",
    ),
}


@pytest.mark.parametrize("config_and_warnings", WARNED.values(), ids=WARNED.keys())
def test_a_key_naming_what_is_not_there_is_a_warning_at_its_line(
    tmp_path: Path, config_and_warnings: tuple[str, ...]
) -> None:
    config, *warnings = config_and_warnings
    assert _warnings(write_book(tmp_path, {}, config)) == warnings


def test_a_malformed_header_link_leaves_out_only_itself(tmp_path: Path) -> None:
    root = write_book(tmp_path, {}, MALFORMED_LINKS)
    assert [link.name for link in load_config(root).html.links] == ["PDF", "A", "B"]


def test_the_favicon_logo_and_version_file_once_there_warn_no_more(tmp_path: Path) -> None:
    root = write_book(tmp_path, {}, MISSING_FILES)
    write_book(root, {"img/icon.png": b"\x89PNG", "img/logo.png": b"\x89PNG"}, None)
    write_book(root, {"d2l/__init__.py": ""}, None)
    assert _warnings(root) == []


INIT = b'"""The library."""\r\n\r\n__version__ = \'0.9\'  # set by the build\r\nX = 1\r\n'
VERSIONED = "[project]\nrelease = 1.2.3\n[build]\ntabs = pytorch\n[library]\n"


def test_the_release_is_written_into_version_file_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    page = "```{.python .input}\ndef f():  #@save\n    return 1\n```\n"
    root = pages_book(tmp_path, {"a": page}, VERSIONED + "version_file = d2l/__init__.py\n")
    init = write_book(root, {"d2l/__init__.py": INIT}, None) / "d2l" / "__init__.py"
    reporter = Reporter()
    libraries(root, reporter)
    assert reporter.diagnostics == []
    assert init.read_bytes() == INIT.replace(b"'0.9'", b"'1.2.3'")
    before = os.stat(init)
    libraries(root, reporter)  # the same release: the file is not written again
    assert os.stat(init).st_ino == before.st_ino and os.stat(init).st_mtime_ns == before.st_mtime_ns
    assert (root / "d2l" / "torch.py").is_file()


def test_a_version_file_without_a_version_line_is_a_warning_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    root = pages_book(tmp_path, {"a": "Words.\n"}, VERSIONED + "version_file = d2l/v.py\n")
    write_book(root, {"d2l/v.py": "VERSION = get()\n"}, None)
    reporter = Reporter()
    libraries(root, reporter)
    assert [str(d) for d in reporter.diagnostics] == [
        'config.ini:6: [library] version_file: d2l/v.py has no `__version__ = "..."` line:'
        " the release is not written [polybook.config]"
    ]
    assert (root / "d2l" / "v.py").read_text() == "VERSION = get()\n"


def test_every_ignored_d2lbook_key_says_why() -> None:
    from polybook.config.schema import WHY_IGNORED

    implemented = {(k.section, k.name) for k in KEYS}
    listed = {(s, k) for s, keys in D2LBOOK_IGNORED.items() for k in keys}
    assert listed <= set(WHY_IGNORED) and set(RENAMED) <= set(WHY_IGNORED)
    assert not implemented & set(WHY_IGNORED)
    assert all(why.strip() for why in WHY_IGNORED.values())


SITE = """[project]
name = b
title = Links
[build]
tabs = pytorch
[html]
header_links = Home, index.html, fas fa-home,
               Missing, b.pdf, fas fa-file-pdf,
               GitHub, https://github.com/o/b, fab fa-github,
               Odd, https://example.org/odd, fas fa-dragon
favicon = img/icon.svg
html_logo = img/logo.svg
"""
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>'


@dataclass(frozen=True)
class Site:
    html: Path  # the built site
    messages: list[str]  # what its build logged


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A book of a page in a folder, with header links, favicon and logo, built."""
    root = pages_book(tmp_path_factory.mktemp("links"), {"one": "Words.\n"}, SITE, folder="c")
    write_book(root, {"img/icon.svg": SVG, "img/logo.svg": SVG}, None)
    collect, logger = Collect(), logging.getLogger("polybook")
    logger.addHandler(collect)
    try:
        assert build(root, "html") == 0
    finally:
        logger.removeHandler(collect)
    return Site(root / "_build" / "html", collect.messages)


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@pytest.mark.slow
def test_every_page_shows_the_header_links_with_their_icons(site: Site) -> None:
    for name in ("index.html", "c/one.html", "search.html"):
        soup = _soup(site.html / name)
        up = "../" if "/" in name else ""
        for place in ("top", "drawer"):
            links = soup.select(f"nav.pb-header-{place} a.pb-header-link")
            assert [a.get_text() for a in links] == ["Home", "Missing", "GitHub", "Odd"], name
            assert [a["href"] for a in links] == [
                f"{up}index.html",
                f"{up}b.pdf",
                "https://github.com/o/b",
                "https://example.org/odd",
            ]
            icons = [a.select_one("svg.pb-icon") for a in links]
            assert [i["class"][1] if i else None for i in icons] == [
                "pb-icon-home",
                "pb-icon-file-pdf",
                "pb-icon-github",
                None,  # not drawn: the text alone
            ]
            assert all(i["aria-hidden"] == "true" for i in icons if i)
        assert soup.select_one('link[rel~="icon"][href$="icon.svg"]') is not None, name
        assert soup.select_one('img.sidebar-logo[src$="logo.svg"]') is not None, name


@pytest.mark.slow
def test_a_missing_header_link_target_is_one_warning_at_its_line(site: Site) -> None:
    said = [m for m in site.messages if "b.pdf" in m]
    assert said == [
        "config.ini:8: [html] header_links: 'Missing' links 'b.pdf', no file of the site"
        " [polybook.site.link]"
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("width", "theme"), [(1280, "light"), (390, "dark")])
def test_header_links_are_reachable_by_keyboard_at_any_width(
    site: Site, width: int, theme: str
) -> None:
    from ..browser import launch_chromium

    axe = node_modules() / "axe-core" / "axe.min.js"
    with launch_chromium() as browser, new_context(browser, width=width) as context:
        context.add_init_script(f"localStorage.setItem('theme', '{theme}')")  # Furo's switch
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(file_url(site.html / "c" / "one.html"))
        if width < 600:  # a phone: the links are in the navigation drawer
            assert not page.locator(".pb-header-top").is_visible()
            page.locator('.mobile-header label[for="__navigation"]').click()
        shown = page.locator(".pb-header-links a:visible")
        assert shown.count() == 4
        for _ in range(40):  # Tab until the first header link has the focus
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.classList.contains('pb-header-link')"):
                break
        focused = page.locator(".pb-header-link:focus")
        assert focused.inner_text() == "Home" and focused.is_visible()
        outline = focused.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline not in ("none", "")
        box = shown.last.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width  # nothing off screen
        page.add_script_tag(path=str(axe))
        found = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations'], preload: false}))"
            ".violations.filter(v => ['serious', 'critical'].includes(v.impact))"
            ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))"
        )
        assert found == []
        assert errors == []
