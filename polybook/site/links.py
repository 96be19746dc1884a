"""Every internal link of the built site, checked: each ``href`` and ``src`` that stays in
the site names a file the site holds, and its ``#fragment`` an anchor of that page.

What each page holds (its anchors and links) is read from its HTML once and kept beside the
build (``_build/site-links.json``) for as long as the file is the same, so that a rebuild
reads only the pages Sphinx wrote. A dead link is located at the line of the author's page
that writes it, where that line can be found (the page's generated MyST names the target;
its line map leads back to the Markdown), else at the page.
"""

from __future__ import annotations

import functools
import html
import json
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from polybook.diagnostics import Diagnostic, Location
from polybook.fsutil import write_atomic
from polybook.memo import FileMemo
from polybook.parallel import map_pages
from polybook.render.names import MAP_SUFFIX

# Comments, and the bodies of scripts and styles, hold no links of the page.
COMMENT = re.compile(r"<!--.*?-->", re.S)
CODE = re.compile(r"(<(?:script|style)\b[^>]*>).*?</(?:script|style)\s*>", re.S | re.I)
# A figure's path data (each formula's drawing holds many): numbers, separators and the
# path's commands alone, which name no attribute; half the scanning of a page of formulas.
PATH_DATA = re.compile(r'<path d="[-+0-9.,eEMmLlHhVvCcSsQqTtAaZz\s]*"')
# A start tag with an attribute that matters here: text has its "<" escaped, and Sphinx and
# Jinja escape ">" in attributes.
TAG = re.compile(r"<[a-zA-Z][^>]*?\s(?:id|name|href|src)\s*=[^>]*>", re.I)
ATTRIBUTE = re.compile(r"""\s(id|name|href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
EDITION = "data-pb-edition"  # marks the language switcher's links (polybook.site.editions)
# Marks the header's links (polybook.site.header): checked once, at their config.ini line.
HEADER = "data-pb-header"
EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")  # a scheme, or another host
KIND = "site.link"
# What this process read of a cache file while it is unchanged, and checked last per site
# (serve's rebuilds).
_LOADED: FileMemo[dict[str, dict[str, list[Any]]]] = FileMemo(8)
_CHECKED: dict[str, _Checked] = {}


@dataclass(frozen=True)
class PageLinks:
    """A page's anchors (``id`` and ``name`` values) and links, in order."""

    anchors: frozenset[str]
    links: tuple[str, ...]


def read_page(text: str) -> PageLinks:
    """The anchors and links of an HTML page."""
    anchors: set[str] = set()
    links: list[str] = []
    text = PATH_DATA.sub("<path", text)  # read past: what follows is read as it was
    for tag in TAG.finditer(CODE.sub(r"\1", COMMENT.sub("", text))):
        for match in ATTRIBUTE.finditer(tag.group(0)):
            value = next(v for v in match.groups()[1:] if v is not None)
            value = html.unescape(value) if "&" in value else value
            if match.group(1).lower() in ("id", "name"):
                anchors.add(value)
            elif EDITION not in tag.group(0) and HEADER not in tag.group(0):
                links.append(value)  # not another edition's site, nor the header's
    return PageLinks(frozenset(anchors), tuple(links))


def _read_file(path: Path) -> PageLinks:
    return read_page(path.read_text(encoding="utf-8", errors="replace"))


def is_external(link: str) -> bool:
    """Whether ``link`` leaves the site (a scheme such as ``https:``, or ``//host``)."""
    return bool(EXTERNAL.match(link.strip()))


class SiteIndex:
    """The site's pages, read once each, and kept by file stamp in ``cache``."""

    def __init__(self, folder: Path, cache: Path) -> None:
        self.folder = folder
        self.cache = cache
        self.pages: dict[str, PageLinks] = {}
        self._stamps: dict[str, list[int]] = {}
        self._old = self._load()

    def _load(self) -> dict[str, dict[str, list[Any]]]:
        """The cache as this process last wrote or read it while the file is the same (a
        served book's rebuilds), else read."""
        return _LOADED.value([self.cache], functools.partial(_read_cache, self.cache))

    def stamp(self, name: str) -> list[int]:
        """The file stamp of the page at ``name``."""
        info = (self.folder / name).stat()
        return [info.st_mtime_ns, info.st_size]

    def _kept(self, name: str) -> tuple[list[int], PageLinks | None]:
        """The page's file stamp, and what it held if it is the file read last time."""
        stamp = self.stamp(name)
        old = self._old.get(name)
        if isinstance(old, dict) and old.get("stamp") == stamp:
            return stamp, PageLinks(frozenset(old["anchors"]), tuple(old["links"]))
        return stamp, None

    def read(self, name: str) -> PageLinks:
        """The page at ``name`` (relative to the site)."""
        if name in self.pages:
            return self.pages[name]
        stamp, page = self._kept(name)
        if page is None:
            page = _read_file(self.folder / name)
        self.pages[name], self._stamps[name] = page, stamp
        return page

    def read_all(self, names: list[str]) -> None:
        """Read the pages ``names`` that changed, on as many processes as pay."""
        unread: list[tuple[str, list[int]]] = []
        for name in names:
            if name not in self.pages:
                stamp, page = self._kept(name)
                if page is None:
                    unread.append((name, stamp))
                else:
                    self.pages[name], self._stamps[name] = page, stamp
        read = map_pages(_read_file, [self.folder / name for name, _ in unread])
        for (name, stamp), page in zip(unread, read, strict=True):
            self.pages[name], self._stamps[name] = page, stamp

    def save(self, pages: list[str] | None = None) -> None:
        """The pages' links kept in the cache (written when a page was read anew); those of
        ``pages`` not read this time as they were."""
        kept: dict[str, Any] = {
            n: self._old[n] for n in pages or () if n not in self.pages and n in self._old
        }
        data: dict[str, Any] = {
            name: {
                "stamp": self._stamps[name],
                "anchors": sorted(p.anchors),
                "links": list(p.links),
            }
            for name, p in self.pages.items()
        }
        data = dict(sorted({**kept, **data}.items()))
        if data != self._old:
            write_atomic(self.cache, json.dumps(data))
        _LOADED.put([self.cache], data)


def _read_cache(cache: Path) -> dict[str, dict[str, list[Any]]]:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def site_files(folder: Path) -> set[str]:
    """Every file of the site, as a path relative to it."""
    found: set[str] = set()
    for parent, _, names in os.walk(folder):
        base = Path(parent).relative_to(folder).as_posix()
        found.update(name if base == "." else f"{base}/{name}" for name in names)
    return found


def site_pages(files: set[str]) -> list[str]:
    """The site's HTML pages (not the theme's or the extensions' static files)."""
    return sorted(f for f in files if f.endswith(".html") and not f.startswith("_static/"))


def dead_reason(
    index: SiteIndex, files: set[str], page: str, link: str, targets: set[str] | None = None
) -> str:
    """Why an internal ``link`` of ``page`` (both relative to the site) leads nowhere, or ""
    when it resolves; ``targets`` gets the page whose anchors it read."""
    parts = urlsplit(link.strip())
    target = page
    if parts.path:
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
        if joined == ".." or joined.startswith("../") or joined.startswith("/"):
            return "it leads outside the site"
        target = joined if joined in files else posixpath.join(joined, "index.html")
        if target not in files:
            return "no such file in the site"
    fragment = unquote(parts.fragment)
    if not fragment or not target.endswith(".html"):
        return ""
    if targets is not None:
        targets.add(target)
    if fragment not in index.read(target).anchors:
        return f"{posixpath.basename(target)} has no anchor #{fragment}"
    return ""


@dataclass(frozen=True)
class DeadLink:
    """An internal link of a page of the site (``page``, its path there) that leads nowhere,
    and where the author wrote it."""

    page: str
    link: str
    reason: str
    location: Location

    @property
    def names(self) -> set[str]:
        """What the link names (its path, its fragment), as a message about it would."""
        parts = urlsplit(self.link)
        return {n for n in (self.link, parts.path, unquote(parts.fragment)) if n}

    @property
    def diagnostic(self) -> Diagnostic:
        return Diagnostic(self.location, f"dead link {self.link}: {self.reason}", KIND)


def _needles(link: str) -> list[str]:
    """What an author's page may write for ``link``, most specific first: the link, its
    page as Markdown (with its fragment), its path, its fragment."""
    parts = urlsplit(link)
    path, fragment = parts.path, unquote(parts.fragment)
    page = path.removesuffix(".html") + ".md" if path.endswith(".html") else ""
    anchored = f"{page}#{fragment}" if page and fragment else ""
    found = [link, anchored, path, page, f"#{fragment}" if fragment else "", fragment]
    return [n for n in dict.fromkeys(found) if n and n not in (".", "..")]


def _written(needle: str) -> re.Pattern[str]:
    """``needle`` where a link target is written: between brackets, quotes or backticks."""
    return re.compile(rf"(?<=[(\"'`<#/\s]){re.escape(needle)}(?=[)\"'`>#\s]|$)")


def locate(root: Path, srcdir: Path, docname: str, link: str, fallback: str) -> Location:
    """The author's line that writes ``link`` on page ``docname``, else the page (the
    book's ``<docname>.md``; ``fallback`` for pages the site makes itself)."""
    author = f"{docname}.md"
    if not (root / author).is_file():
        return Location(fallback)
    try:
        text = (srcdir / author).read_text(encoding="utf-8").split("\n")
        origin = [int(n) for n in json.loads((srcdir / f"{docname}{MAP_SUFFIX}").read_text())]
    except (OSError, ValueError):
        return Location(author)
    for needle in _needles(link):
        written = _written(needle)
        for number, line in enumerate(text):
            if written.search(line):
                return Location(author, origin[number] if number < len(origin) else 0)
    return Location(author)


@dataclass
class _Checked:
    """A site's link check as this process last made it: its files, each page's stamp,
    the pages whose anchors its links read, its dead links (link, reason), and each page's
    anchors."""

    files: set[str]
    stamps: dict[str, list[int]]
    targets: dict[str, set[str]]
    dead: dict[str, list[tuple[str, str]]]
    anchors: dict[str, frozenset[str]]


def _recheck(
    last: _Checked | None, files: set[str], stamps: dict[str, list[int]], index: SiteIndex
) -> set[str]:
    """The pages to check again: every one where files came or went, else those whose
    file changed and those whose links read the anchors of a changed page whose anchors
    changed (a prose edit rewrites a page, not its anchors)."""
    if last is None or last.files != files:
        return set(stamps)
    changed = {name for name, stamp in stamps.items() if last.stamps.get(name) != stamp}
    moved = {name for name in changed if index.read(name).anchors != last.anchors.get(name)}
    return changed | {name for name, read in last.targets.items() if read & moved}


def check_links(root: Path, folder: Path, srcdir: Path, cache: Path) -> list[DeadLink]:
    """The dead internal links of the site in ``folder`` (its pages' sources in
    ``srcdir``, the book at ``root``), once per page and link. In a process that checked
    the site before (``polybook serve``), only the pages an edit rewrote, and those whose
    links lead to them, are checked again."""
    index = SiteIndex(folder, cache)
    files = site_files(folder)
    pages = site_pages(files)
    stamps = {name: index.stamp(name) for name in pages}
    last = _CHECKED.get(str(folder))
    again = _recheck(last, files, stamps, index)
    index.read_all(sorted(again))
    known: dict[tuple[str, str], tuple[str, set[str]]] = {}  # (folder or page, link) -> ...
    targets = dict(last.targets) if last else {}
    dead = dict(last.dead) if last else {}
    for name in sorted(again):
        targets[name], dead[name] = set(), []
        for link in dict.fromkeys(index.read(name).links):
            if not link.strip() or is_external(link):
                continue
            key = (name if link.startswith(("#", "?")) else posixpath.dirname(name), link)
            if key not in known:
                read: set[str] = set()
                known[key] = (dead_reason(index, files, name, link, read), read)
            reason, read = known[key]
            targets[name] |= read
            if reason:
                dead[name].append((link, reason))
    anchors = dict(last.anchors) if last else {}
    anchors.update((name, page.anchors) for name, page in index.pages.items())
    _CHECKED[str(folder)] = _Checked(files, stamps, targets, dead, anchors)
    found: list[DeadLink] = []
    for name in pages:
        for link, reason in dead.get(name, []):
            page = folder / name
            fallback = page.relative_to(root).as_posix() if page.is_relative_to(root) else name
            where = locate(root, srcdir, name.removesuffix(".html"), link, fallback)
            found.append(DeadLink(name, link, reason, where))
    index.save(pages)
    return found


def external_links(folder: Path, cache: Path) -> dict[str, list[str]]:
    """The site's links that leave it (``http``/``https``), each with the pages that hold it."""
    index = SiteIndex(folder, cache)
    found: dict[str, list[str]] = {}
    for name in site_pages(site_files(folder)):
        for link in index.read(name).links:
            if link.startswith(("http://", "https://")) and name not in found.get(link, []):
                found.setdefault(link, []).append(name)
    index.save()
    return found
