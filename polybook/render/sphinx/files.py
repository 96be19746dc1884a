"""The files Sphinx reads for a page, held inside the book.

The render core's extension replaces the directives that read a file (``include``,
``literalinclude``, ``raw`` and ``csv-table``) and checks every image and download before
Sphinx collects it. Each file is resolved as the page's author reads it: relative to the
page's place in the book (or to the included file that names it), a leading ``/`` being the
book's root. A file outside the book and the allowed folders (see :mod:`polybook.confine`),
or one read from a URL, is an error at its line, and nothing of it is read or copied.

The files each page read are recorded (``pb_inputs``), so that an edit to one rebuilds the
pages that read it (:mod:`polybook.render.page_inputs`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.parsers.rst.directives.misc import Raw
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.directives.code import LiteralInclude
from sphinx.directives.other import Include
from sphinx.directives.patches import CSVTable
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from polybook.confine import Confinement, Outside, allowed_hint, is_url
from polybook.fsutil import write_atomic
from polybook.memo import FileMemo
from polybook.parallel import map_pages
from polybook.render.page_inputs import write_inputs
from polybook.render.svg import EMPTY_SVG, sanitize_svg

logger = logging.getLogger(__name__)
NETWORK = "reads a URL: a build reads no file from the network"


def _confinement(env: BuildEnvironment) -> Confinement:
    config = env.config
    return Confinement(Path(config.pb_book_root), tuple(Path(p) for p in config.pb_allowed_paths))


def _book_folder(env: BuildEnvironment, source: str) -> Path:
    """The folder, in the book, of the file being read: a page of the sources stands for the
    book's page; a file included from the book is where it is."""
    path = Path(os.path.abspath(source))
    srcdir = Path(os.path.abspath(env.srcdir))
    if path.is_relative_to(srcdir):
        return Path(env.config.pb_book_root) / path.parent.relative_to(srcdir)
    return path.parent


def _refuse(what: str, why: str, location: Any) -> None:
    logger.error("%s %s", what, why, location=location, type="file", subtype="outside")


def _where(env: BuildEnvironment, source: str, line: int) -> Any:
    """A place for the log: the page and its line, or an included file's path and line."""
    path = Path(os.path.abspath(source))
    if path.is_relative_to(os.path.abspath(env.srcdir)):
        return (env.current_document.docname, line)
    return f"{_confinement(env).relative(path)}:{line}"


def _place(directive: SphinxDirective | Raw) -> tuple[str, Any]:
    """The file being read where ``directive`` is, and its place for the log."""
    env: BuildEnvironment = directive.state.document.settings.env
    source, line = directive.state_machine.get_source_and_line(directive.lineno)
    source = source or str(env.doc2path(env.current_document.docname))
    return source, _where(env, source, line or directive.lineno)


def confined(directive: SphinxDirective | Raw, name: str, what: str) -> Path | None:
    """The file ``name`` stands for in the book, or None (an error is logged)."""
    env: BuildEnvironment = directive.state.document.settings.env
    source, where = _place(directive)
    if is_url(name) and not name.startswith("file://"):
        _refuse(what, NETWORK, where)
        return None
    try:
        return _confinement(env).resolve(name, _book_folder(env, source))
    except Outside as why:
        _refuse(what, f"{why}: {allowed_hint()}", where)
        return None


def _file_option(directive: SphinxDirective | Raw) -> bool:
    """Check a ``raw`` or ``csv-table`` directive's ``:file:`` (made relative to the file
    being read, as docutils takes it) and refuse its ``:url:``; False when refused."""
    if "url" in directive.options:
        _refuse(f"`{directive.name}` :url:", NETWORK, _place(directive)[1])
        return False
    if "file" in directive.options:
        target = confined(directive, directive.options["file"], f"`{directive.name}` :file:")
        if target is None:
            return False
        document = directive.state.document
        source = Path(os.path.abspath(document.current_source or document["source"]))
        directive.options["file"] = os.path.relpath(target, source.parent)
    return True


def _from_page(env: BuildEnvironment, target: Path) -> str:
    """``target`` as Sphinx's ``include`` and ``literalinclude`` take it: relative to the
    page's folder in Sphinx's sources."""
    folder = Path(env.srcdir) / env.doc2path(env.current_document.docname, base=False).parent
    return os.path.relpath(target, folder)


class ConfinedRaw(Raw):  # type: ignore[misc]
    """``raw``: a ``:file:`` inside the book; no ``:url:``."""

    def run(self) -> list[nodes.Node]:
        return list(super().run()) if _file_option(self) else []


class ConfinedCSVTable(CSVTable):
    """``csv-table``: a ``:file:`` inside the book; no ``:url:``."""

    def run(self) -> list[nodes.Node]:
        return list(super().run()) if _file_option(self) else []


class ConfinedLiteralInclude(LiteralInclude):
    """``literalinclude`` (and its ``:diff:``) inside the book."""

    def run(self) -> list[nodes.Node]:
        target = confined(self, self.arguments[0], "`literalinclude`")
        diff = (
            confined(self, self.options["diff"], "`literalinclude` :diff:")
            if ("diff" in self.options)
            else None
        )
        if target is None or ("diff" in self.options and diff is None):
            return []
        self.arguments[0] = _from_page(self.env, target)
        if diff is not None:
            self.options["diff"] = _from_page(self.env, diff)
        return list(super().run())


class ConfinedInclude(SphinxDirective):
    """``include`` inside the book, in reStructuredText and in MyST Markdown alike.

    Not a subclass of docutils' ``Include``: MyST runs those its own way, without their
    ``run``. This one checks the file, then runs Sphinx's ``include`` (or MyST's, in
    Markdown) on it.
    """

    required_arguments = 1
    final_argument_whitespace = True
    option_spec = {  # noqa: RUF012 (docutils' API)
        **Include.option_spec,
        "relative-images": directives.flag,
        "relative-docs": directives.path,
        "heading-offset": directives.nonnegative_int,
    }

    def run(self) -> list[nodes.Node]:
        from myst_parser.mocking import MockIncludeDirective, MockState

        name = self.arguments[0]
        if not (name.startswith("<") and name.endswith(">")):  # docutils' own files
            target = confined(self, name, "`include`")
            if target is None:
                return []
            name = _from_page(self.env, target)
        if isinstance(self.state, MockState):
            renderer = self.state._renderer
            body = list(self.content)
            mock = MockIncludeDirective(
                renderer, self.name, Include, [name], self.options, body, self.lineno
            )
            return list(mock.run())
        include = Include(
            self.name,
            [name],
            self.options,
            self.content,
            self.lineno,
            self.content_offset,
            self.block_text,
            self.state,
            self.state_machine,
        )
        return list(include.run())


def _checked_path(app: Sphinx, docname: str, uri: str, node: nodes.Element) -> str | None:
    """``uri`` (an image's, a download's) as Sphinx takes it: as it is where Sphinx's
    sources hold the file; else the book's file it names, relative to the page's folder in
    the sources; None when it leaves the book (an error is logged)."""
    env = app.env
    if uri.startswith("data:") or (is_url(uri) and not uri.startswith("file://")):
        return uri
    confinement = _confinement(env)
    _, in_sources = env.relfn2path(uri, docname)
    if os.path.exists(in_sources) and confinement.holds(Path(in_sources)):
        return uri
    book_folder = Path(env.config.pb_book_root) / env.doc2path(docname, base=False).parent
    try:
        target = confinement.resolve(uri, book_folder)
    except Outside as why:
        what = "a download" if isinstance(node, addnodes.download_reference) else "an image"
        _refuse(what, f"{why}: {allowed_hint()}", node)
        return None
    if not target.exists():
        return uri  # Sphinx says it is missing
    folder = Path(env.srcdir) / env.doc2path(docname, base=False).parent
    return os.path.relpath(target, folder)


def check_images(app: Sphinx, doctree: nodes.document) -> None:
    """Before Sphinx collects them: each image and download of the page inside the book."""
    docname = app.env.current_document.docname
    for image in list(doctree.findall(nodes.image)):
        uri = _checked_path(app, docname, str(image["uri"]), image)
        if uri is None:
            image.parent.remove(image)
        else:
            image["uri"] = uri
    for download in list(doctree.findall(addnodes.download_reference)):
        target = _checked_path(app, docname, str(download["reftarget"]), download)
        if target is None:
            download.replace_self(nodes.literal(text=str(download.astext())))
        else:
            download["reftarget"] = target


def record_inputs(app: Sphinx, error: Exception | None) -> None:
    """Write which files outside Sphinx's sources each page read (``pb_inputs``)."""
    if error is not None or not app.config.pb_inputs:
        return
    srcdir = Path(os.path.abspath(app.srcdir))
    found: dict[str, list[str]] = {}
    for docname, paths in app.env.dependencies.items():
        outside = {os.path.normpath(srcdir / str(p)) for p in paths}
        outside = {p for p in outside if not Path(p).is_relative_to(srcdir)}
        if outside:
            found[docname] = sorted(outside)
    write_inputs(Path(app.config.pb_inputs), found)


def _inert(text: str, kept: Path) -> str | None:
    """``text`` made inert, as :func:`sanitize_svg`, remembered in ``kept`` by its digest:
    a figure the build copies again (Sphinx copies each anew, as the inert one differs
    from its source) is not parsed again. None where it is not a well-formed SVG."""
    try:
        found = _held(kept, text).read_text(encoding="utf-8")
        return found or None
    except OSError:
        pass
    clean = sanitize_svg(text)
    write_atomic(_held(kept, text), clean or "")
    if clean and clean != text:  # left in place (not copied again), it is read as inert
        write_atomic(_held(kept, clean), clean)
    return clean


def _held(kept: Path, text: str) -> Path:
    return kept / (hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:32] + ".svg")


def inert_figures(app: Sphinx, error: Exception | None) -> None:
    """The SVG files the build copied (the book's figures, its downloads) rebuilt from the
    allow-list of :mod:`polybook.render.svg`: a reader may open one on its own. One that
    is not a well-formed SVG is emptied, with a warning. Each is parsed once: its inert form
    is kept by the digest of what was copied, in the build's cache (``pb_inert_cache``, kept
    by ``make clean``), else beside the doctrees (``pb-inert/``)."""
    outdir = Path(app.outdir)
    kept = Path(app.config.pb_inert_cache or Path(app.doctreedir) / "pb-inert")
    copied = [
        path
        for folder in (outdir / "_images", outdir / "_downloads")
        for path in (sorted(folder.rglob("*.svg")) if folder.is_dir() else ())
    ]
    # A process kept warm (``polybook serve``) looks again only at the figures Sphinx
    # copied since its last build: those it left are as this process made them.
    paths = [path for path in copied if _INERT.known([path]) is None]
    made = map_pages(_make_inert, [(p, kept) for p in paths])
    for path, well_formed in zip(paths, made, strict=True):
        if not well_formed:
            name = path.relative_to(outdir).as_posix()
            message = "%s is not a well-formed SVG: emptied"
            logger.warning(message, name, type="render", subtype="svg")
        else:
            _INERT.put([path], True)


_INERT: FileMemo[bool] = FileMemo(65536)  # figures made inert, while they are unchanged


def _make_inert(job: tuple[Path, Path]) -> bool:
    """Make the copied figure inert in place (``job``: it and the cache of inert forms);
    False where it was not a well-formed SVG, and is emptied."""
    path, kept = job
    text = path.read_text(encoding="utf-8", errors="replace")
    clean = _inert(text, kept)
    if clean != text:
        write_atomic(path, clean or EMPTY_SVG)
    return clean is not None


def setup(app: Sphinx) -> None:
    """Register the directives, the check of images and downloads, and the record."""
    app.add_config_value("pb_book_root", "", "env", str)
    app.add_config_value("pb_allowed_paths", [], "env", list)
    app.add_config_value("pb_inputs", "", "", str)  # where the pages' inputs are written
    app.add_config_value("pb_inert_cache", "", "", str)  # the copied figures' inert forms
    app.add_directive("raw", ConfinedRaw, override=True)
    app.add_directive("csv-table", ConfinedCSVTable, override=True)
    app.add_directive("literalinclude", ConfinedLiteralInclude, override=True)
    app.add_directive("include", ConfinedInclude, override=True)
    app.connect("doctree-read", check_images, priority=100)  # before Sphinx's collectors
    app.connect("build-finished", record_inputs)
    app.connect("build-finished", inert_figures)
