"""Runs Sphinx builds in a process of their own.

``python -m polybook.render.sphinx.run SETTINGS.json [--fresh] [--jobs N] [--when-told]
[--parent PID]`` (``-`` for ``SETTINGS.json``: Sphinx and the extensions are imported, then
a line on stdin names the settings file and ``fresh``, ``PATH 0`` or ``PATH 1``):
``--fresh`` rereads every page (Sphinx's ``-E``); ``--jobs`` reads and
writes pages in N processes (Sphinx's ``-j``; it does so where there are enough pages);
``--when-told`` starts Sphinx (its imports, extensions and pickled environment), then builds
each time a line ``go`` comes on stdin, answering ``done STATUS`` on stdout, until stdin
ends: the log and diagnostics of each run go beside the usual files (``.next``) for the
caller to put in place (see :mod:`polybook.render.sphinx.process`); the environment, the
search index and the inventory are written after the answer (:mod:`.deferred`): at the
next line, at the end of stdin, or half a second after a line ``late`` (the build's page
is out) when nothing else came. A warm process so kept
by ``polybook serve`` turns an edit into a page in a fraction of a second. ``--parent``
names the build's process: when it dies, this one and the processes it forked die at once,
so that nothing writes into ``_build/`` after the build that owns it is gone
(:mod:`polybook.lifeline`).

Sphinx and docutils keep registries at module level; a process of its own keeps them, and
their memory, out of the orchestrator. Warnings go, located, to the settings' ``diagnostics``
file (written by the extension), and so does an exception, as a located error (the process
ends with ``REPORTED``; its traceback goes to the log); Sphinx's other messages go
to its ``log`` file; stderr carries only the traceback of a crash before the extension is in.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import multiprocessing
import os
import select
import signal
import sys
from typing import Any

NEXT = ".next"  # beside the log and diagnostics files: those of a run not yet told to go
GO = "go"
LATE = "late"  # write what the last build deferred (see .deferred), then wait again
# Seconds a kept process waits after "late" before it writes what it deferred, unless told
# more: the browser reloads the edited page meanwhile, on CPUs of its own.
LATE_DELAY = 0.5
READY = "-"  # in place of the settings file: import first, then read it from stdin


DONE = "polybook-sphinx-done"
REPORTED = 3  # the status of a run that failed and wrote where, located, in the diagnostics


def _build(app: Any, log: Any, log_name: str) -> int:
    """One build of ``app``; its status. An exception (here or in a worker process) is a
    located error in the diagnostics (status REPORTED), its traceback in the log; where
    it cannot be, the traceback goes to stderr."""
    from polybook.render.sphinx import failures

    try:
        app.build()
    except Exception as err:
        if failures.report(app, err, log, log_name):
            return REPORTED
        sys.stderr.write(failures.traceback_text(err))
        return 1
    if failures.page_failed(app):  # said, located; the next build runs Sphinx again
        return REPORTED
    return 0 if app.statuscode == 0 else 1


# What a site's Sphinx run imports, imported by a process started before its settings exist.
READY_IMPORTS = (
    "sphinx.application",
    "sphinx.builders.html",
    "myst_parser",
    "sphinxcontrib.bibtex",
    "polybook.render.sphinx.core_ext",
    "polybook.render.sphinx.highlight",
    "polybook.site.math_svg",
    "sphinx.ext.autodoc",
)


def ready() -> tuple[str, bool] | None:
    """Import what a run needs, then wait for its settings: one line on stdin, the settings
    file and ``fresh`` (``PATH 1``); None when stdin ends first (not needed)."""
    import contextlib
    import importlib

    for name in READY_IMPORTS:
        with contextlib.suppress(ImportError):  # one this environment lacks: its run says so
            importlib.import_module(name)
    line = sys.stdin.readline().strip()
    if not line:
        return None
    path, _, fresh = line.rpartition(" ")
    return path, fresh == "1"


def _warm(app: Any) -> None:
    """What a kept process's first build would pay for the whole book, paid while it waits
    to be told: every page's doctree unpickled (numbering the figures walks them all; kept,
    see :mod:`.doctrees`), the citations formatted (kept, see :mod:`.cite`), the copied
    figures known inert (read and checked once each: half a second of d2l-en's first edit),
    the theme's templates compiled, the code cells' lexers made, and what the outputs'
    extensions warm on :data:`.deferred.KEPT_WARMING` (the site: each folder's navigation,
    kept while no edit changes a listing; with the lexers, a fifth of a second of d2l-en's
    first edit). Its results are those the build computes again; what it logs is
    cleared when the build starts."""
    from polybook.render.sphinx.deferred import KEPT_WARMING
    from polybook.render.sphinx.doctrees import DOCTREES
    from polybook.render.sphinx.files import inert_figures

    try:
        for docname in sorted(app.env.all_docs):
            DOCTREES.get(app.env, docname)
        if "cite" in app.env.domains:
            app.env.domains["cite"].env_updated()
        inert_figures(app, None)
        _compile_templates(app)
        _make_lexers(app)
        app.emit(KEPT_WARMING)  # the outputs' own (the site's navigation)
    except Exception:  # the build finds what went wrong, and says it, located
        logging.getLogger(__name__).debug("warming the Sphinx process failed", exc_info=True)


def _compile_templates(app: Any) -> None:
    """Each HTML template of the builder's theme compiled (Jinja keeps it), as writing the
    first page would compile those it uses."""
    templates = getattr(app.builder, "templates", None)
    environment: Any = getattr(templates, "environment", None)
    if environment is None:
        return
    for loader in getattr(templates, "loaders", ()):
        for name in loader.list_templates():
            if name.endswith(".html"):
                environment.get_template(name)


def _make_lexers(app: Any) -> None:
    """The lexers of Python cells made (Python's and IPython's: their rules compiled), as
    highlighting the first cell would make them."""
    highlighter = getattr(app.builder, "highlighter", None)
    if highlighter is not None:
        for cell in ("x = 1\n", "%time x\n"):  # read by Python's lexer, and by IPython's
            highlighter.highlight_block(cell, "python")


def _order(wait: float | None) -> str | None:
    """The next line on stdin ("" at its end), or None when none came within ``wait``
    seconds (None: as long as it takes). Read unbuffered: a line left in a buffer would
    not wake the wait."""
    if not select.select([0], [], [], wait)[0]:
        return None
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            break
        line += byte
    return line.decode().strip()


def main(settings_path: str, fresh: bool = False, jobs: int = 1, when_told: bool = False) -> int:
    from sphinx._cli.util.colour import disable_colour
    from sphinx.application import Sphinx

    from polybook.parallel import collect_after_forks, collect_young
    from polybook.profiling import profiled
    from polybook.render.sphinx import log as sphinx_log
    from polybook.render.sphinx.deferred import defer, run_deferred

    disable_colour()  # a plain log file
    with open(settings_path, encoding="utf-8") as handle:
        settings = json.load(handle)
    aside = NEXT if when_told else ""
    sphinx_log.aside = aside  # this process's runs only: the extension's diagnostics
    overrides = {
        **settings["config"],
        "pb_diagnostics": settings["diagnostics"],
        "pb_builder": settings["builder"],
    }
    with open(settings["log"] + aside, "w", encoding="utf-8") as log:
        try:
            app = Sphinx(
                srcdir=settings["srcdir"],
                confdir=None,
                outdir=settings["outdir"],
                doctreedir=settings["doctreedir"],
                buildername=settings["builder"],
                confoverrides=overrides,
                status=log,
                warning=log,
                freshenv=fresh,
                parallel=jobs,
            )
        except Exception as err:  # an extension's setup, the environment: no page yet
            from polybook.render.sphinx.failures import one_line, traceback_text

            log.write(traceback_text(err))
            where = f"its traceback is in {settings['log']}"
            sys.stderr.write(f"Sphinx failed to start ({where}): {one_line(err)}\n")
            return 1
        if not when_told:
            return _build(app, log, settings["log"])
        defer()  # the environment, the search index: written once the build is done
        _warm(app)
        # What warming read stays for the process's life: the collector no longer walks it
        # (a full collection walked every doctree kept, a third of an edit's build).
        gc.freeze()
        late = False  # told that its last build is out
        while True:
            order = _order(LATE_DELAY if late else None)
            if order == LATE:
                late = True
                continue
            with profiled("sphinx-late"):
                run_deferred()  # the last build's, if not written yet
            late = False
            if order is None:  # nothing more since "late": the page is out
                collect_after_forks()  # a build that read or wrote many pages forked
                collect_young()
                continue
            if order != GO:
                break
            log.seek(0)
            log.truncate()
            sphinx_log.restart(app)
            with profiled("sphinx"):
                status = _build(app, log, settings["log"])
            log.flush()
            sphinx_log.flush(app)
            print(f"{DONE} {status}", flush=True)
            if status:
                return status  # a crashed app is not built again
            # Sphinx's parallel writers leave pages unwritten in an app's later builds; those
            # are an edit's few pages, written in this process.
            app.parallel = 1
    return 0  # not wanted again: the caller keeps or removes the files


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m polybook.render.sphinx.run")
    parser.add_argument("settings")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--when-told", action="store_true")
    parser.add_argument("--parent", type=int, default=0)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _arguments(sys.argv[1:])
    if arguments.parent:
        from polybook.lifeline import die_with_parent, forks_die_with_parent, watch_parent

        if not die_with_parent(arguments.parent):
            watch_parent(arguments.parent, signal.SIGKILL)
        forks_die_with_parent()
    from polybook.parallel import collect_for_builds, forks_leave_inherited_uncollected

    collect_for_builds()
    forks_leave_inherited_uncollected()  # Sphinx's readers and writers are forks
    jobs = max(1, arguments.jobs)
    told = ready() if arguments.settings == READY else (arguments.settings, arguments.fresh)
    status = main(told[0], told[1], jobs, arguments.when_told) if told else 0
    # A one-shot process: what is left is freeing the environment's objects, which the
    # system does at once (Python's teardown takes a third of a second after a small
    # rebuild). Files are flushed first: the log is closed, the diagnostics' handler flushed.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    # Processes an extension started (sphinx-sitemap's multiprocessing manager) end with
    # Python's teardown, which is skipped: they would outlive this one, holding its pipes.
    for child in multiprocessing.active_children():
        child.terminate()
        child.join(timeout=5)
    os._exit(status)
