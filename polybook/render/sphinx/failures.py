"""An exception raised while Sphinx, MyST or docutils reads or writes a page, reported as a
located error at that page instead of a traceback.

Reading a page (``Builder.read_doc``) and writing one (``_write_docname``, in Sphinx's main
process or in a writer process) are guarded: an exception becomes an error logged at the
page's Markdown line where the traceback holds a node, a directive or a MyST token, with
the exception's one-line message; its traceback goes to Sphinx's log. Being logged, it
comes back from a writer process as its warnings do, and the build goes on: a page that
failed to read stands as a placeholder that says so (read again by the next run), one that
failed to be written is not written. The build's other exceptions are reported by :func:`report`,
located at no page.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from types import TracebackType
from typing import IO, Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import builders
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.errors import SphinxParallelError
from sphinx.util import logging as sphinx_logging

from polybook.diagnostics import Diagnostic, Location
from polybook.render.sphinx.log import HANDLER, OWN_TYPE, DiagnosticsHandler, node_place

SUBTYPE = "sphinx.exception"
FAILED = "Sphinx failed on this page: {error}"
PLACEHOLDER = "This page failed to build: the build's errors say why."
logger = sphinx_logging.getLogger(__name__)


def one_line(err: BaseException) -> str:
    """``ExcType: message``, the message's first line."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def _frame_place(local: dict[str, Any], docname: str) -> tuple[str, int] | None:
    """A place in the page that a frame's locals hold: a node with a line, the directive
    being run, the MyST token being rendered."""
    node = local.get("node")
    if isinstance(node, nodes.Node):
        source, line = node_place(node)
        if line:
            return source or docname, line
    this = local.get("self")
    if isinstance(this, Directive) and this.lineno:
        return docname, int(this.lineno)
    token_map = getattr(local.get("token"), "map", None)
    if isinstance(token_map, list) and token_map:
        return docname, int(token_map[0]) + 1
    return None


def _innermost_place(tb: TracebackType | None, docname: str) -> tuple[str, int | None]:
    found: tuple[str, int | None] = (docname, None)
    while tb is not None:
        found = _frame_place(tb.tb_frame.f_locals, docname) or found
        tb = tb.tb_next
    return found


def _log_failure(docname: str, err: Exception) -> None:
    """``err`` as an error at its place in ``docname``; its traceback in Sphinx's log."""
    logger.info("%s", "".join(traceback.format_exception(err)).rstrip())
    place = _innermost_place(err.__traceback__, docname)
    message = FAILED.format(error=one_line(err))
    logger.error("%s", message, location=place, type=OWN_TYPE, subtype=SUBTYPE)


FAILED_PAGES: set[str] = set()  # this process's pages that failed to read


def _placeholder_source(app: Sphinx, docname: str, source: list[str]) -> None:
    """A page that failed to read is read again as a page that says so."""
    if docname in FAILED_PAGES:
        source[0] = f"# {docname.rpartition('/')[2]}\n\n{PLACEHOLDER}\n"


def _guard_reading(read_doc: Callable[..., None]) -> Callable[..., None]:
    def read(self: Builder, docname: str, **kwargs: Any) -> None:
        try:
            read_doc(self, docname, **kwargs)
        except Exception as err:
            _log_failure(docname, err)
            # What it left of the page goes, as Sphinx clears a page before reading it.
            self.events.emit("env-purge-doc", self.env, docname)
            self.env.clear_doc(docname)
            FAILED_PAGES.add(docname)
            try:
                read_doc(self, docname, **kwargs)
            finally:
                FAILED_PAGES.discard(docname)
            self.env.reread_always.add(docname)  # read again by the next run

    read.__wrapped__ = read_doc  # type: ignore[attr-defined]
    return read


def _guard_writing(write_docname: Callable[..., None]) -> Callable[..., None]:
    def write(docname: str, *, env: Any, builder: Builder, tags: Any) -> None:
        try:
            write_docname(docname, env=env, builder=builder, tags=tags)
        except Exception as err:
            _log_failure(docname, err)

    write.__wrapped__ = write_docname  # type: ignore[attr-defined]
    return write


def guard_pages(app: Sphinx) -> None:
    """Guard the reading and the writing of every page (once per process)."""
    app.connect("source-read", _placeholder_source, priority=900)  # after the others
    if not hasattr(Builder.read_doc, "__wrapped__"):
        Builder.read_doc = _guard_reading(Builder.read_doc)  # type: ignore[misc,method-assign]
    if not hasattr(builders._write_docname, "__wrapped__"):
        builders._write_docname = _guard_writing(builders._write_docname)


def page_failed(app: Sphinx) -> bool:
    """Whether a page failed to be read or written in the app's last build."""
    handler: DiagnosticsHandler | None = getattr(app, HANDLER, None)
    return handler is not None and handler.failed


def traceback_text(err: Exception) -> str:
    """The traceback of ``err`` (a worker's own, for an exception in a worker process)."""
    if isinstance(err, SphinxParallelError):
        return str(err.traceback)
    return "".join(traceback.format_exception(err))


def report(app: Sphinx, err: Exception, log: IO[str], log_name: str) -> bool:
    """Write ``err``, raised by the build out of any page, as an error to the diagnostics
    (its traceback to ``log``, named ``log_name`` in the message); whether it could."""
    handler: DiagnosticsHandler | None = getattr(app, HANDLER, None)
    if handler is None:
        return False
    log.write(traceback_text(err))
    log.flush()
    said = str(err.message) if isinstance(err, SphinxParallelError) else one_line(err)
    message = f"Sphinx failed (its traceback is in {log_name}): {said}"
    handler.write_record(Diagnostic(Location("sphinx"), message, SUBTYPE, "error").to_json())
    return True
