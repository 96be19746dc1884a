"""Sphinx's warnings, mapped to the author's lines inside the Sphinx process.

The extension swaps Sphinx's warning handler for :class:`DiagnosticsHandler`. It keeps
Sphinx's own filters (``suppress_warnings``, ``once``), reads each record's ``location``
(a node, ``(docname, line)`` or a ``path:line`` string), moves the generated page's line
back to the source line through the page's ``.pbmap.json`` and writes one JSON object a
line to the diagnostics file the orchestrator reads after the build.

Beside the diagnostics, the file records what this run did, so that the orchestrator can
keep the warnings of the pages Sphinx did not touch (``polybook.render.warning_store``):
``{"event": "read"|"written", "docname": …}``, ``{"event": "checked"}`` and
``{"event": "found", "docnames": […]}``. Each diagnostic names the page it is located in
and the phase it was emitted in (``read``, ``check``, ``write``; ``run`` for the others).
Sphinx holds back the warnings of reading and writing until the phase ends, so the phase
is the one that the events say is running when a warning arrives here.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NamedTuple

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging as sphinx_logging

from polybook.diagnostics import Diagnostic, Location
from polybook.render.names import API_FOLDER, MAP_SUFFIX

# Appended to the file's name by a run that starts before it is told to go (see
# polybook.render.sphinx.run): the caller puts the file in place once the run is over.
aside = ""

PAGE_BEING_READ = "pb_docname"  # set on each log record

# Filters of Sphinx's warning handler that format text (or are scoped to a ``with`` block).
TEXT_FILTERS = (sphinx_logging.WarningLogRecordTranslator, sphinx_logging.MessagePrefixFilter)


def node_place(node: nodes.Node) -> tuple[str | None, int | None]:
    """Source and line of ``node``, each from the nearest ancestor that has one. Content
    parsed from a string (``<unknown>``, ``<autodoc>``) is placed at what holds it."""
    source: str | None = None
    line: int | None = None
    current: nodes.Node | None = node
    while current is not None and (source is None or line is None):
        if current.source and str(current.source).startswith("<"):
            line = None  # a line of that string, not of the page
        else:
            source = source or current.source
            line = line or current.line
        current = current.parent
    if source is None and node.document is not None:
        source = node.document.get("source")
    return (str(source) if source else None), line


def _split_location(text: str) -> tuple[str, int | None]:
    """``path:line``, ``path:`` or ``docname`` -> (path or docname, line)."""
    head, sep, tail = text.rpartition(":")
    if sep and (tail.isdigit() or not tail):
        return head, int(tail) if tail else None
    return text, None


class Place(NamedTuple):
    """Where a warning is, for the author: path, line (0 when unknown) and page, if one."""

    path: str | None
    line: int
    docname: str | None = None


class Mapper:
    """Generated page places -> the author's ``path`` and ``line``."""

    def __init__(self, srcdir: Path) -> None:
        self.srcdir = srcdir.resolve()
        self._maps: dict[str, list[int]] = {}

    def docname(self, where: str) -> str | None:
        """The docname of a page file (absolute or relative to srcdir) or of a docname."""
        path = Path(where)
        if path.is_absolute():
            try:
                path = path.resolve().relative_to(self.srcdir)
            except ValueError:
                return None
        name = path.as_posix()
        if name.endswith(".md"):
            return name.removesuffix(".md")
        return name if (self.srcdir / (name + ".md")).is_file() else None

    def origin(self, docname: str) -> list[int]:
        if docname not in self._maps:
            try:
                data = (self.srcdir / (docname + MAP_SUFFIX)).read_text(encoding="utf-8")
                self._maps[docname] = [int(x) for x in json.loads(data)]
            except (OSError, ValueError):
                self._maps[docname] = []
        return self._maps[docname]

    def place(self, location: Any) -> Place:
        """The author's place of a record's location."""
        where: str | None
        if isinstance(location, nodes.Node):
            where, line = node_place(location)
        elif isinstance(location, tuple):
            where, line = location[0], location[1]
        elif isinstance(location, str) and location:
            where, line = _split_location(location)
        else:
            return Place(None, 0)
        if not where:
            return Place(None, 0)
        docname = self.docname(where)
        if docname is None:  # not a page: a resource, or a file outside the site
            path = Path(where)
            if path.is_absolute() and path.resolve().is_relative_to(self.srcdir):
                where = path.resolve().relative_to(self.srcdir).as_posix()
            return Place(where, line or 0)
        origin = self.origin(docname)
        if line and origin:
            line = origin[min(line, len(origin)) - 1]
        return Place(docname + ".md", line or 0, docname)


OWN_TYPE = "pb"  # the type of a record that polybook logs in Sphinx (see .failures)
FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)')
RAISED = "; the following exception was raised:"


def condensed(message: str) -> str:
    """A warning that carries a Python traceback (autodoc's failed imports), as its first line,
    the exception and where the innermost frame of the first traceback is."""
    lines = message.splitlines()
    if "Traceback (most recent call last):" not in lines[1:]:
        return message
    start = lines.index("Traceback (most recent call last):")
    place = ""
    for line in lines[start + 1 :]:
        frame = FRAME.match(line)
        if frame:
            place = f"{frame[1]}:{frame[2]}"
        elif line and not line[0].isspace():
            where = f" (at {place})" if place else ""
            return f"{lines[0].removesuffix(RAISED)}: {line}{where}"
    return message


def subtype(record: logging.LogRecord) -> str:
    """``render.<type>.<subtype>`` from Sphinx's warning type, else ``render``; polybook's
    own records keep theirs."""
    parts = [str(getattr(record, k, "") or "") for k in ("type", "subtype")]
    if parts[0] == OWN_TYPE:  # polybook's own, its subtype in full
        return parts[1]
    return ".".join(["render", *(p for p in parts if p)]) if parts[0] else "render"


def _generated_duplicate(record: logging.LogRecord, place: Place) -> bool:
    """A Python object described by the book's own API page (autodoc in ``eval_rst``) and
    by the generated API page: the same object, twice on purpose."""
    if not str(record.msg).startswith("duplicate object description of"):
        return False
    other = str(record.args[1]) if isinstance(record.args, tuple) and record.args[1:] else ""
    pages = (other, place.docname or "")
    return any(page.startswith(API_FOLDER + "/") for page in pages)


class DiagnosticsHandler(sphinx_logging.WarningStreamHandler):
    """Sphinx's warning handler, writing located JSON diagnostics instead of text.

    A :class:`WarningStreamHandler` so that Sphinx's ``pending_warnings`` and
    ``prefixed_warnings`` find it as they find the handler it replaces.
    """

    def __init__(self, stream: IO[str], mapper: Mapper) -> None:
        super().__init__(sphinx_logging.SafeEncodingWriter(stream))
        self.file = stream
        self.mapper = mapper
        self.phase = "run"  # set by the build's events: read, check, write
        self.failed = False  # whether a page failed (see .failures) in this run

    def diagnostic(self, record: logging.LogRecord, place: Place) -> dict[str, Any]:
        diag = Diagnostic(
            Location(place.path or "sphinx", place.line),
            condensed(record.getMessage().rstrip()),
            subtype(record),
            "error" if record.levelno >= logging.ERROR else "warning",
        )
        phase = self.phase if place.docname else "run"
        return {**diag.to_json(), "docname": place.docname, "phase": phase}

    def write_record(self, data: dict[str, Any]) -> None:
        self.stream.write(json.dumps(data) + "\n")
        self.flush()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            place = self.mapper.place(_location(record))
            own = getattr(record, "type", "") == OWN_TYPE
            self.failed = self.failed or (own and record.levelno >= logging.ERROR)
            if not _generated_duplicate(record, place):
                self.write_record(self.diagnostic(record, place))
        except Exception:
            self.handleError(record)

    def event(self, name: str, **data: Any) -> None:
        """Record what the build did (pages read, written, the consistency check)."""
        self.write_record({"event": name, **data})


def _track(app: Sphinx, handler: DiagnosticsHandler) -> None:
    """Follow the build's phases and record the pages it reads and writes."""

    def phase(name: str) -> Callable[..., None]:
        def enter(*args: Any) -> None:
            handler.phase = name
            if name == "check":
                handler.event("checked")

        return enter

    def found(app: Sphinx, error: Exception | None) -> None:
        if error is None:
            handler.event("found", docnames=sorted(app.env.found_docs))

    app.connect("env-before-read-docs", phase("read"))
    app.connect("source-read", lambda app, docname, source: handler.event("read", docname=docname))
    app.connect("env-check-consistency", phase("check"))
    app.connect("write-started", phase("write"))
    app.connect("doctree-resolved", lambda app, tree, name: handler.event("written", docname=name))
    app.connect("build-finished", found)


def _location(record: logging.LogRecord) -> Any:
    """The record's location; else the page being read when it was made, if any."""
    return getattr(record, "location", None) or getattr(record, PAGE_BEING_READ, None)


def _stamp_records(app: Sphinx) -> None:
    """Make each log record note the page being read: Sphinx holds reading's warnings back
    until every page is read, and some (autodoc's) come with no location of their own."""
    make = logging.getLogRecordFactory()

    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        made = make(*args, **kwargs)
        env = getattr(app, "env", None)
        setattr(made, PAGE_BEING_READ, env.current_document.docname if env else "")
        return made

    logging.setLogRecordFactory(record)


HANDLER = "pb_diagnostics_handler"  # the app's handler, for the builds after its first


def restart(app: Sphinx) -> None:
    """Before another build by the same app: a new diagnostics file, the pages' line maps
    read again, warnings given "once" given again."""
    handler: DiagnosticsHandler | None = getattr(app, HANDLER, None)
    if handler is None:
        return
    handler.file.seek(0)
    handler.file.truncate()
    handler.mapper = Mapper(Path(app.srcdir))
    handler.phase = "run"
    handler.failed = False
    for keep in handler.filters:
        if isinstance(keep, sphinx_logging.OnceFilter):
            keep.messages.clear()


def flush(app: Sphinx) -> None:
    """The diagnostics written so far, on disk."""
    handler: DiagnosticsHandler | None = getattr(app, HANDLER, None)
    if handler is not None:
        handler.flush()


def install(app: Sphinx, target: str) -> None:
    """Replace Sphinx's warning handler by one writing diagnostics to ``target``."""
    _stamp_records(app)
    logger = logging.getLogger(sphinx_logging.NAMESPACE)
    stream = open(target + aside, "w", encoding="utf-8")  # noqa: SIM115 (the app's life)
    handler = DiagnosticsHandler(stream, Mapper(Path(app.srcdir)))
    handler.setLevel(logging.WARNING)
    setattr(app, HANDLER, handler)
    _track(app, handler)
    for index, old in enumerate(logger.handlers):
        if isinstance(old, sphinx_logging.WarningStreamHandler):
            for keep in old.filters:  # suppress_warnings, once: not text or prefixes
                if not isinstance(keep, TEXT_FILTERS):
                    handler.addFilter(keep)
            logger.handlers[index] = handler
            return
    handler.addFilter(sphinx_logging.WarningSuppressor(app))
    handler.addFilter(sphinx_logging.OnceFilter())
    logger.addHandler(handler)
