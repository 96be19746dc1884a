"""The files a book reads beside its pages, and the check that each lies inside the book.

A page names files in its prose: figures (``![caption](path)``), directives that read one
(``include``, ``literalinclude``, ``raw`` and ``csv-table`` with ``:file:``, ``image``,
``figure``) in ```` ```eval_rst ```` blocks and MyST fences, and downloads. The
configuration names more: resources, the static folder, the bibliography, logos, requirement
files. :func:`check_files` refuses, at the line that names it, each one that lies outside
the book's root and the folders ``[build] allowed_paths`` names (links followed), and each
read from the network: a build stops before it renders anything, and ``polybook check``
says the same. The render core's Sphinx extension holds what Sphinx reads to the same rule
(:mod:`polybook.render.sphinx.files`), includes inside included files too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from markdown_it import MarkdownIt

from polybook.config import Book, key_location
from polybook.config.named import configured_files
from polybook.confine import Confinement, Outside, allowed_hint, is_url
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.memo import HeldMemo
from polybook.source.book import ParsedBook
from polybook.source.model import Document, Prose, TabProse

SUBTYPE = "source.outside"
NAMED: HeldMemo[list[NamedFile]] = HeldMemo(8192)  # by the page's parse (kept itself)
# Directives whose argument is a file, and those whose options name one.
PATH_ARGUMENT = ("include", "literalinclude", "image", "figure")
FILE_OPTIONS = ("file", "url", "diff")
# docutils reads directive, option and role names in any letter case; a substitution
# definition (``.. |name| image:: path``) is a directive too.
RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:\|[^|]+\|\s+)?([\w-]+)::\s*(.*?)\s*$")
COLON_FENCE = re.compile(r"^\s*:{3,}\s*\{([\w-]+)\}\s*(.*?)\s*$")
OPTION = re.compile(r"^\s*:?(file|url|diff):\s*(\S.*?)\s*$", re.IGNORECASE)
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*(?:<([^>]+)>|([^)\s]+))")
# A Markdown link to a file that is not a page becomes a download; so may a definition's.
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*(?:<([^>]+)>|([^)\s]+))")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(?:<([^>]+)>|(\S+))")
DOWNLOAD = re.compile(r"(?::download:|\{download\})`(?:[^`<]*<([^`>]+)>|([^`]+))`", re.IGNORECASE)
MARKERS = ("![", "::", "download", ":::", "```{", "~~~{", "](", "]:")
_blocks = MarkdownIt("commonmark").disable("inline")


@dataclass(frozen=True)
class NamedFile:
    """A file a page names: as written, at its line, and by what (for messages)."""

    name: str
    line: int
    what: str


def _directive_files(lines: list[str], first: int, fence_name: str = "") -> Iterator[NamedFile]:
    """Files named by reST directives in ``lines`` (an ``eval_rst`` block's) or by the MyST
    directive ``fence_name`` whose body they are; ``first`` is the line of ``lines[0]``."""
    current = fence_name
    for offset, line in enumerate(lines):
        number = first + offset
        if match := RST_DIRECTIVE.match(line):
            current = match.group(1).lower()
            if current in PATH_ARGUMENT and (
                argument := match.group(2) + _argument_below(lines, offset)
            ):
                yield NamedFile(argument, number, f"`{current}`")
        elif (match := OPTION.match(line)) and current and match.group(1).lower() in FILE_OPTIONS:
            yield NamedFile(match.group(2), number, f"`{current}` :{match.group(1).lower()}:")
        if "download" in line.lower():
            yield from _downloads(line, number)


def _argument_below(lines: list[str], offset: int) -> str:
    """The rest of the argument of the directive at ``lines[offset]``: docutils reads it on
    to a blank line or an option, and a path argument's lines join without whitespace."""
    parts = []
    for line in lines[offset + 1 :]:
        text = line.strip()
        if not text or text.startswith(":") or not line[:1].isspace():
            break
        parts.append(text)
    return "".join(parts)


def _downloads(line: str, number: int) -> Iterator[NamedFile]:
    for match in DOWNLOAD.finditer(line):
        yield NamedFile((match.group(1) or match.group(2)).strip(), number, "a download")


def _prose_files(text: str, first: int) -> Iterator[NamedFile]:
    """Files named in one prose block whose first line is ``first``."""
    if not any(marker in text.lower() for marker in MARKERS):
        return
    raw = text.split("\n")
    code: set[int] = set()
    for token in _blocks.parse(text if text.endswith("\n") else text + "\n"):
        if token.type not in ("fence", "code_block") or not token.map:
            continue
        start, end = token.map
        code.update(range(start, end))
        info = token.info.strip()
        body = raw[start + 1 : end - 1]
        if info == "eval_rst" or info.lower() == "{eval-rst}":
            yield from _directive_files(body, first + start + 1)
        elif info.startswith("{") and "}" in info:
            name = info[1 : info.index("}")].lower()
            argument = info[info.index("}") + 1 :].strip()
            if name in PATH_ARGUMENT and argument:
                yield NamedFile(argument, first + start, f"`{name}`")
            yield from _directive_files(body, first + start + 1, name)
    fence = ""
    for offset, line in enumerate(raw):
        if offset in code:
            continue
        number = first + offset
        if match := COLON_FENCE.match(line):
            fence, argument = match.group(1).lower(), match.group(2)
            if fence in PATH_ARGUMENT and argument:
                yield NamedFile(argument, number, f"`{fence}`")
            continue
        if fence and (match := OPTION.match(line)) and match.group(1).lower() in FILE_OPTIONS:
            yield NamedFile(match.group(2), number, f"`{fence}` :{match.group(1).lower()}:")
        for image in IMAGE.finditer(line):
            yield NamedFile(image.group(1) or image.group(2), number, "a figure")
        links = [*LINK.finditer(line), *filter(None, [DEFINITION.match(line)])]
        for link in links:
            target = (link.group(1) or link.group(2)).split("#")[0]
            if target:
                yield NamedFile(target, number, "a link")
        if "download" in line.lower():
            yield from _downloads(line, number)


def named_files(doc: Document) -> list[NamedFile]:
    """The files ``doc`` names in its prose, in order; once per parse (a page's parse is
    kept while its text is the same: ``polybook serve`` reads the edited page's alone)."""

    def read(_: Reporter) -> list[NamedFile]:
        found: list[NamedFile] = []
        for block in doc.blocks:
            if isinstance(block, (Prose, TabProse)):
                found.extend(_prose_files(block.text, block.line))
        return found

    return list(NAMED.get((doc,), "", read, Reporter(quiet=True)))


def _refusal(named: NamedFile, confinement: Confinement, base: Path) -> str:
    """Why the book may not read ``named`` ("" when it may)."""
    name = named.name
    if name.startswith("<") and name.endswith(">"):
        return ""  # one of docutils' own standard includes
    if named.what.endswith(":url:"):
        return f"{named.what} reads {name!r} from the network: a build reads no URL"
    if is_url(name) and not name.startswith("file://"):
        return ""  # a link the reader's browser follows, not a file the build reads
    target = confinement.locate(name, base)
    if not target.exists():
        return ""  # nothing to read: a missing file is reported where it is used
    try:
        confinement.check(target, name)
    except Outside as why:
        return f"{named.what} {why}: {allowed_hint()}"
    return ""


def _included_files(target: Path) -> list[NamedFile]:
    """The files an included file names: a Markdown one as a page's prose, any other as
    reStructuredText."""
    try:
        text = target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if target.suffix == ".md":
        return list(_prose_files(text, 1))
    return list(_directive_files(text.split("\n"), 1))


def check_pages(book: ParsedBook, confinement: Confinement, reporter: Reporter) -> None:
    """Each file the pages name, and the files the files they include name, lies in the
    book or an allowed folder (else an error at the line that names it)."""
    confinement = confinement.walking()  # the pages' files lie in a few folders
    seen: set[Path] = set()
    for doc in book.documents:
        pending = [(doc.path, confinement.root / PurePosixPath(doc.path).parent, named_files(doc))]
        while pending:
            path, base, found = pending.pop()
            for named in found:
                refused = _refusal(named, confinement, base)
                if refused:
                    where = Location(path, named.line)
                    reporter.error(PolybookError(where, refused, SUBTYPE))
                elif named.what == "`include`" and not named.name.startswith("<"):
                    target = confinement.locate(named.name, base)
                    if target.is_file() and target not in seen:
                        seen.add(target)
                        shown = confinement.relative(target)
                        pending.append((shown, target.parent, _included_files(target)))


def check_config_files(info: Book, extensions: tuple[str, ...], reporter: Reporter) -> None:
    """Each file the configuration names (every key of the schema whose values name files,
    in every section), and each file in the folders copied into the outputs (resources,
    ``static/``), lies in the book or an allowed folder; and the book's own ``extensions``
    are allowed (:func:`check_extensions`)."""
    confinement = info.confinement
    copied = [info.root / "static"]
    for named in configured_files(info.root):
        try:
            confinement.check(named.path, str(named.path))
        except Outside as why:
            message = f"[{named.section}] {named.key}: {why}: {allowed_hint()}"
            reporter.error(PolybookError(named.where, message, SUBTYPE))
            continue
        if named.key == "resources":
            copied.append(named.path)
    check_extensions(info, extensions, reporter)
    for folder in copied:
        for link in confinement.links_out(folder) if folder.is_dir() else ():
            where = Location(confinement.relative(link))
            message = f"a link to a file outside the book ({link.resolve()}): {allowed_hint()}"
            reporter.error(PolybookError(where, message, SUBTYPE))


def check_extensions(info: Book, extensions: tuple[str, ...], reporter: Reporter) -> None:
    """A ``[build] sphinx_extensions`` module (of ``extensions``) of the book's own is
    imported by Sphinx: it runs the book's code, refused when the build executes none
    (``eval_notebook`` off, ``--executor none``)."""
    if info.runs_book_code:
        return
    for name in extensions:
        top = name.split(".")[0]
        if (info.root / f"{top}.py").is_file() or (info.root / top).is_dir():
            where = key_location(info.root, "build", "sphinx_extensions")
            message = (
                f"[build] sphinx_extensions: {name!r} is a module of the book: Sphinx would run"
                " it, and this build executes nothing of the book (eval_notebook off or"
                " executor none)"
            )
            reporter.error(PolybookError(where, message, "source.code"))
