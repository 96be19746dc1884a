"""The execute stage's entry point: every notebook of a build run in its framework's kernel,
or taken from the cache (or ``_freeze/``).

Plans the jobs (:mod:`polybook.execution.plan`), hands them to the scheduler and an
executor, records runs in the cache and writes the executed notebooks to ``_build/eval``.
With ``[build] eval_notebook = false`` nothing runs: the notebooks go on as split.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.diagnostics import Location, Reporter
from polybook.environments import devices, venvs
from polybook.environments.existing import ExistingEnvironment
from polybook.environments.gpu_info import gpu_info
from polybook.execution.cache import ExecutionCache
from polybook.execution.executors.protocol import Executor
from polybook.execution.executors.registry import create_executor
from polybook.execution.inputs import Environments, Execution
from polybook.execution.jobs import Inventory, Job, JobResult
from polybook.execution.output_noise import OutputFilter
from polybook.execution.outputs_store import OutputsStore, fill_all
from polybook.execution.plan import (
    EvalReport,
    device_classes,
    execution_cache,
    plan,
    report_skipped,
    timings,
    version,
)
from polybook.execution.required_libs import check_required_libs
from polybook.execution.resources import link_data, place_resources
from polybook.execution.scheduler import Scheduler
from polybook.fsutil import write_atomic
from polybook.layout import Layout
from polybook.library.canonical import KEY_FORMAT
from polybook.library.model import SavedBlock
from polybook.library.stage import Library
from polybook.meta import RunInfo, notebook_meta, update_notebook_meta
from polybook.nb import Notebooks, strip_ansi, writes

logger = logging.getLogger("polybook")


@dataclass(frozen=True)
class Executed:
    """What the outputs are made from: the library stage's result and each notebook as
    executed (or as split, when nothing runs), with what the execute stage did."""

    library: Library
    report: EvalReport

    @property
    def notebooks(self) -> dict[tuple[str, str], NotebookNode]:
        """(page, framework) -> the notebook."""
        return self.report.executed

    @property
    def failed(self) -> list[tuple[str, str]]:
        """(page, framework) of the notebooks that failed: their outputs keep the last good."""
        return self.report.failed


def execute(
    library: Library,
    run: Execution,
    environments: Environments,
    reporter: Reporter,
) -> Executed:
    """Run the library's notebooks (``[build] eval_notebook``), or pass them on as split
    (an executor that takes a head start finds its zygotes where
    :mod:`polybook.execution.kernels.head_start` keeps them)."""
    if not run.build.eval_notebook:
        split = {(p, fw): nb for fw, nbs in library.notebooks.items() for p, nb in nbs}
        store = OutputsStore(run.book.root, library.sources.notebooks)
        if stored := fill_all(store, split, reporter):
            logger.info("%d notebooks show outputs from the book's outputs/ store", stored)
        return Executed(library, EvalReport(executed=split))
    pages = library.sources.request.pages
    report = build_eval(
        run,
        environments,
        library.notebooks,
        library.blocks,
        reporter,
        set(pages) if pages else None,
        split=library.sources.notebooks,
    )
    logger.info(
        "executed %d notebooks, %d from the cache, %d failed",
        len(report.ran),
        len(report.cached),
        len(report.failed),
    )
    for edition in sorted(set(report.editions.values())):
        reused = sum(1 for e in report.editions.values() if e == edition)
        logger.info("%d notebooks reused from edition %s (the same code)", reused, edition)
    return Executed(library, report)


def build_eval(
    run: Execution,
    environments: Environments,
    notebooks: Notebooks,
    libraries: dict[str, list[SavedBlock]],
    reporter: Reporter,
    pages: set[str] | None = None,
    inventory: Inventory | None = None,
    split: Notebooks | None = None,
) -> EvalReport:
    """Execute (or take from the cache) every notebook; failures are reported, not raised.
    ``environments``: the book's, or those set up already (a side build's:
    :class:`~polybook.execution.inputs.Given`); ``split``: the notebooks before the library
    stage rewrote them (what an outputs store's fingerprints are of)."""
    book, build = run.book, run.build
    report = EvalReport()
    cache = execution_cache(book, build.cache, run.editions)
    expected = timings(book)
    ready = tuple(fw for fw in notebooks if fw in libraries)
    setup = create_executor(book, build, inventory, run.executor_settings)
    runner, inventory = setup.executor, setup.inventory
    try:
        found = _environments(build.device, environments, ready, runner.on_this_host)
        report.classes = device_classes(build.device, found, inventory)
        jobs = plan(
            run,
            notebooks,
            libraries,
            found,
            cache,
            inventory,
            expected,
            pages,
            report,
            reporter,
            split,
        )
        if runner.on_this_host:  # where the workers hold them, they are not here to read
            found.update(_set_up(environments, ready, {job.framework for job in jobs}))
            running = {fw: env for fw, env in found.items() if fw in {j.framework for j in jobs}}
            check_required_libs(notebooks, running, reporter, pages)
        if jobs and runner.on_this_host:  # a Dask worker places them itself
            place_resources(book, build.resources, {job.framework for job in jobs})
            link_data(book, build.data, {job.framework for job in jobs})
        if jobs:
            held = _Running(run, runner, inventory, setup.slots, found, cache, expected)
            _run(held, jobs, report, reporter)
    finally:
        runner.shutdown()
    _write_executed(book.layout, report)
    return report


def _environments(
    device: str, environments: Environments, ready: tuple[str, ...], here: bool
) -> dict[str, venvs.Environment]:
    """The frameworks' environments named by their pins on ``device`` (``[build] device``),
    nothing set up: the plan needs only their identities, and those whose notebooks must
    run here are set up afterwards (:func:`_set_up`). An interpreter of the author's
    (``[env-<tab>] python``) is read at once where it runs ``here``: its identity is what it
    holds."""
    named = dict(environments.named(ready, devices.resolve_device(device)))
    if here:
        own = tuple(fw for fw in ready if environments.existing(fw))
        named.update(environments.ready(own) if own else {})
    return named


def _set_up(
    environments: Environments, ready: tuple[str, ...], running: set[str]
) -> dict[str, venvs.Environment]:
    """The environments of the frameworks with notebooks to ``run`` here, set up where
    missing; when there are none, one line says that nothing was set up."""
    wanted = tuple(fw for fw in ready if fw in running and not environments.existing(fw))
    if ready and not running:
        logger.info(
            "every notebook's outputs come from the execution cache or _freeze/:"
            " no framework environment is set up"
        )
    return dict(environments.ready(wanted)) if wanted else {}


@dataclass(frozen=True)
class _Running:
    """What a build's jobs run with: the executor and what it holds, the environments,
    the cache their results go to and the timings they update."""

    run: Execution
    executor: Executor
    inventory: Inventory
    slots: int
    environments: dict[str, venvs.Environment]
    cache: ExecutionCache
    timings: dict[str, float]


def _run(running: _Running, jobs: list[Job], report: EvalReport, reporter: Reporter) -> None:
    """Run ``jobs``; each result goes into ``report``, the cache and the timings, its
    outputs without framework noise and host paths (``[build] keep_output``: lines kept
    all the same)."""
    from polybook.execution.progress import BuildProgress

    environments, inventory, cache = running.environments, running.inventory, running.cache
    timings, build = running.timings, running.run.build
    keep, shared_cache = build.keep_output, build.cache
    versions = {fw: version(env) for fw, env in environments.items()}
    filters = {fw: OutputFilter.of(env.spec.output_noise, keep) for fw, env in environments.items()}
    gpu = gpu_info().describe() if inventory.gpus else ""  # the provenance of GPU runs

    def finished(result: JobResult) -> None:
        job = result.job
        if result.notebook is not None:
            filters.get(job.framework, OutputFilter()).clean(result.notebook)
            report.executed[(job.path, job.framework)] = result.notebook
        if result.status != "ok" or result.notebook is None:
            if result.error is not None:
                reporter.error(result.error)
                failure = result.failure
                traceback = strip_ansi(failure.traceback if failure else "").strip()
                if traceback and result.error.subtype != "exec.download":  # one line says it
                    tail = "\n".join(traceback.splitlines()[-12:])
                    logger.info("%s", "    " + tail.replace("\n", "\n    "))
            report.failed.append((job.path, job.framework))
            return
        skipped = report_skipped(result.notebook, job.path, job.framework, reporter)
        run = RunInfo(
            host_gpus=inventory.gpus if result.host_gpus is None else result.host_gpus,
            skipped=skipped,
            seconds=round(result.seconds, 3),
            date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            framework_version=versions.get(job.framework, ""),
            device_class=report.classes.get(job.framework, ""),
            gpu=gpu if report.classes.get(job.framework, "") != devices.CPU else "",
        )
        code = report.codes.get((job.path, job.framework), "")
        update_notebook_meta(
            result.notebook, run=run, key=job.key, code=code, key_format=KEY_FORMAT
        )
        try:
            cache.put(job.key, result.notebook)
        except OSError as exc:  # the shared cache is unreachable: this build's result stands
            where = Location(job.path, 0, job.framework)
            reporter.warn(where, f"not published to {shared_cache}: {exc}", "exec.cache")
        report.ran.append((job.path, job.framework, result.seconds))
        timings[f"{job.path}|{job.framework}"] = result.seconds

    with BuildProgress(len(jobs)) as progress:

        def on_finish(result: JobResult) -> None:
            finished(result)
            progress.on_finish(result)

        try:
            scheduler = Scheduler(
                running.executor, inventory, running.slots, progress.on_start, on_finish
            )
            scheduler.run(jobs)
        finally:
            timings_file = running.run.book.layout.timings
            write_atomic(timings_file, json.dumps(timings, indent=1, sort_keys=True))
    if logger.isEnabledFor(logging.INFO):
        progress.console.print(progress.table())
        for fw, env in environments.items():
            if isinstance(env, ExistingEnvironment):
                progress.console.print(f"{fw} ran in {env.describe()}", soft_wrap=True)


def _write_executed(layout: Layout, report: EvalReport) -> None:
    """``_build/eval/<framework>/<page>.ipynb``; an index of content hashes skips the same."""
    index_file = layout.eval_index
    try:
        index: dict[str, str] = json.loads(index_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        index = {}
    for (path, fw), nb in report.executed.items():
        out = layout.executed(path, fw)
        name = out.relative_to(layout.build).as_posix()
        key = _written_as(nb)
        if key and index.get(name) == key and out.is_file():
            continue
        write_atomic(out, writes(nb))
        index[name] = key
    write_atomic(index_file, json.dumps(index, indent=1, sort_keys=True))


def _written_as(nb: NotebookNode) -> str:
    """The run's key and the cells as they read now (a comment edit keeps the key)."""
    key = notebook_meta(nb).key
    if not key:
        return ""
    cells = [(c.cell_type, c.source, dict(c.metadata)) for c in nb.cells]
    text = json.dumps(cells, sort_keys=True, default=str)
    return f"{key}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
