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
from collections.abc import Mapping
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.config import BookConfig, key_location
from polybook.diagnostics import Location, Reporter
from polybook.environments import devices, venvs
from polybook.environments.existing import ExistingEnvironment
from polybook.environments.prepare import ensure_all
from polybook.execution.cache import ExecutionCache
from polybook.execution.executors.protocol import Executor
from polybook.execution.executors.registry import create_executor
from polybook.execution.jobs import Inventory, Job, JobResult
from polybook.execution.kernels.zygote_pool import ZygotePool
from polybook.execution.plan import (
    EvalReport,
    device_classes,
    execution_cache,
    plan,
    report_skipped,
    timings,
    version,
)
from polybook.execution.resources import place_resources
from polybook.execution.scheduler import Scheduler
from polybook.fsutil import write_atomic
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
    library: Library, config: BookConfig, reporter: Reporter, zygotes: ZygotePool | None = None
) -> Executed:
    """Run the library's notebooks (``[build] eval_notebook``), or pass them on as split;
    ``zygotes``: those started ahead (:mod:`polybook.execution.kernels.head_start`)."""
    if not config.build.eval_notebook:
        split = {(p, fw): nb for fw, nbs in library.notebooks.items() for p, nb in nbs}
        return Executed(library, EvalReport(executed=split))
    pages = library.sources.request.pages
    report = build_eval(
        config,
        library.notebooks,
        library.blocks,
        reporter,
        set(pages) if pages else None,
        zygotes=zygotes,
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
    config: BookConfig,
    notebooks: Notebooks,
    libraries: dict[str, list[SavedBlock]],
    reporter: Reporter,
    pages: set[str] | None = None,
    inventory: Inventory | None = None,
    given: Mapping[str, venvs.Environment] | None = None,
    zygotes: ZygotePool | None = None,
) -> EvalReport:
    """Execute (or take from the cache) every notebook; failures are reported, not raised.
    ``given``: the environments to run in, set up already (a side build's), instead of the
    book's."""
    report = EvalReport()
    cache = execution_cache(config)
    expected = timings(config)
    ready = tuple(fw for fw in notebooks if fw in libraries)
    for fw in [fw for fw in ready if not config.framework(fw).declared]:
        where = key_location(config.root, "build", "tabs", fw)
        reporter.error(venvs.undeclared(config.framework(fw), where))
        for path, nb in notebooks[fw]:
            report.executed[(path, fw)] = nb  # rendered without outputs
    ready = tuple(fw for fw in ready if config.framework(fw).declared)
    setup = create_executor(config, inventory, zygotes)
    runner, inventory = setup.executor, setup.inventory
    try:
        environments = _environments(config, ready, given, runner.on_this_host)
        report.classes = device_classes(config, environments, inventory)
        jobs = plan(
            config,
            notebooks,
            libraries,
            environments,
            cache,
            inventory,
            expected,
            pages,
            report,
            reporter,
        )
        if jobs and runner.on_this_host:  # a Dask worker places them itself
            place_resources(config, {job.framework for job in jobs})
        if jobs:
            _run(
                config,
                jobs,
                runner,
                inventory,
                setup.slots,
                environments,
                cache,
                expected,
                report,
                reporter,
            )
    finally:
        runner.shutdown()
    _write_executed(config, report)
    return report


def _environments(
    config: BookConfig,
    ready: tuple[str, ...],
    given: Mapping[str, venvs.Environment] | None,
    here: bool,
) -> dict[str, venvs.Environment]:
    """The frameworks' environments: ``given`` ones, else set up here for an executor that
    runs ``here``, else (the workers, or no one, hold them) named by their pins."""
    if given is not None:
        return {fw: given[fw] for fw in ready if fw in given}
    if not here:
        device = devices.resolve_device(config.build.device)
        return {
            fw: venvs.book_environment(
                config.book, fw, device, config.envs, config.extra_requirements(fw)
            )
            for fw in ready
        }
    extras = {fw: config.extra_requirements(fw) for fw in ready}
    found = ensure_all(config.book, ready, config.build.device, config.env_settings, extras)
    return {e.framework: e for e in found}


def _run(
    config: BookConfig,
    jobs: list[Job],
    executor: Executor,
    inventory: Inventory,
    slots: int,
    environments: dict[str, venvs.Environment],
    cache: ExecutionCache,
    timings: dict[str, float],
    report: EvalReport,
    reporter: Reporter,
) -> None:
    """Run ``jobs``; each result goes into ``report``, the cache and the timings."""
    from polybook.execution.progress import BuildProgress

    versions = {fw: version(env) for fw, env in environments.items()}

    def finished(result: JobResult) -> None:
        job = result.job
        if result.notebook is not None:
            report.executed[(job.path, job.framework)] = result.notebook
        if result.status != "ok" or result.notebook is None:
            if result.error is not None:
                reporter.error(result.error)
                failure = result.failure
                traceback = strip_ansi(failure.traceback if failure else "").strip()
                if traceback:
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
        )
        code = report.codes.get((job.path, job.framework), "")
        update_notebook_meta(result.notebook, run=run, key=job.key, code=code)
        try:
            cache.put(job.key, result.notebook)
        except OSError as exc:  # the shared cache is unreachable: this build's result stands
            where = Location(job.path, 0, job.framework)
            reporter.warn(where, f"not published to {config.build.cache}: {exc}", "exec.cache")
        report.ran.append((job.path, job.framework, result.seconds))
        timings[f"{job.path}|{job.framework}"] = result.seconds

    with BuildProgress(len(jobs)) as progress:

        def on_finish(result: JobResult) -> None:
            finished(result)
            progress.on_finish(result)

        try:
            Scheduler(executor, inventory, slots, progress.on_start, on_finish).run(jobs)
        finally:
            write_atomic(config.layout.timings, json.dumps(timings, indent=1, sort_keys=True))
    if logger.isEnabledFor(logging.INFO):
        progress.console.print(progress.table())
        for fw, env in environments.items():
            if isinstance(env, ExistingEnvironment):
                progress.console.print(f"{fw} ran in {env.describe()}", soft_wrap=True)


def _write_executed(config: BookConfig, report: EvalReport) -> None:
    """``_build/eval/<framework>/<page>.ipynb``; an index of content hashes skips the same."""
    layout = config.layout
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
