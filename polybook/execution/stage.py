"""Execute stage entry point: every notebook of a build run, or taken from the cache.

Plans the jobs (content keys, the library snapshot each notebook sees, its kernel), hands
them to the scheduler and an executor, records runs in the cache and writes the executed
notebooks to ``_build/eval``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nbformat import NotebookNode

from polybook.config import BookConfig, key_location
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.execution import devices, envs
from polybook.execution.cache import ExecutionCache, adopt_outputs
from polybook.execution.existing import ExistingEnvironment
from polybook.execution.freeze import FrozenOutputs, find_run
from polybook.execution.kernel import KernelEnv
from polybook.execution.local import LocalExecutor
from polybook.execution.scheduler import Executor, Inventory, Job, JobResult, Scheduler
from polybook.execution.usage import LibraryUsage
from polybook.fsutil import write_atomic
from polybook.library import SavedBlock, library_text
from polybook.meta import RunInfo, cell_meta, notebook_meta, update_notebook_meta
from polybook.nb import Notebooks, strip_ansi, writes

if TYPE_CHECKING:
    from polybook.execution.dask_executor import DaskExecutor

logger = logging.getLogger("polybook")


@dataclass
class EvalReport:
    """What the execute step did: per notebook, where its result came from and how long."""

    executed: dict[tuple[str, str], NotebookNode] = field(default_factory=dict)
    ran: list[tuple[str, str, float]] = field(default_factory=list)
    cached: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    frozen: list[tuple[str, str]] = field(default_factory=list)  # shown from _freeze/
    classes: dict[str, str] = field(default_factory=dict)  # the device class of each framework
    codes: dict[tuple[str, str], str] = field(default_factory=dict)  # code keys (freeze.py)


def execution_cache(config: BookConfig) -> ExecutionCache:
    """``_build/cache/exec``, in front of ``[build] cache`` when that names another place."""
    shared = config.cache
    if shared and "://" not in shared:
        shared = str((config.root / Path(shared).expanduser()).resolve())
    return ExecutionCache(config.build_dir / "cache" / "exec", shared)


def _package_init(config: BookConfig, fw: str) -> bytes:
    """The book's own ``d2l/__init__.py`` (part of what every notebook imports)."""
    init = config.root / Path(config.library_for(fw).lib_file).parent / "__init__.py"
    return init.read_bytes() if init.is_file() else b""


def _lib_snapshot(config: BookConfig, fw: str, blocks: list[SavedBlock]) -> Path:
    """A d2l package holding ``blocks`` only, under ``_build/lib`` (named by content)."""
    target = config.library_for(fw)
    text = library_text(blocks, config.framework(fw).display_name)
    root = config.build_dir / "lib" / fw / hashlib.sha256(text.encode()).hexdigest()[:16]
    write_atomic(root / Path(target.lib_file).parent / "__init__.py", _package_init(config, fw))
    write_atomic(root / target.lib_file, text)
    return root


def _timings(config: BookConfig) -> dict[str, float]:
    path = config.build_dir / "cache" / "timings.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): float(v) for k, v in data.items()}
    except (OSError, ValueError):
        return {}


def _plan(
    config: BookConfig,
    notebooks: Notebooks,
    libraries: dict[str, list[SavedBlock]],
    environments: dict[str, envs.Environment],
    cache: ExecutionCache,
    inventory: Inventory,
    timings: dict[str, float],
    pages: set[str] | None,
    report: EvalReport,
    reporter: Reporter,
) -> list[Job]:
    """The notebooks to run; cached and code-free ones go straight into ``report``."""
    jobs: list[Job] = []
    requirements = {fw: env.identity() for fw, env in environments.items()}
    package_inits = {
        fw: hashlib.sha256(_package_init(config, fw)).hexdigest() for fw in environments
    }
    frozen = FrozenOutputs(config.root)
    for fw, env in environments.items():
        usage = LibraryUsage(libraries[fw], config.library_for(fw).lib_file)
        for index, (path, nb) in enumerate(notebooks[fw]):
            report.executed[(path, fw)] = nb
            if not any(c.cell_type == "code" for c in nb.cells):
                continue  # nothing to run
            visible = [b for b in libraries[fw] if b.notebook <= index]
            library = usage.digest(nb, index) + package_inits[fw]
            own = report.classes.get(fw, devices.CPU)
            found = find_run(
                cache,
                frozen,
                (path, fw),
                nb,
                requirements[fw],
                library,
                own,
                inventory.gpus,
                reporter,
            )
            key, cached, report.codes[(path, fw)] = found.key, found.run, found.code
            if cached is not None:
                done = adopt_outputs(nb, cached)
                update_notebook_meta(done, code=found.code)
                _report_skipped(done, path, fw, reporter)
                report.cached.append((path, fw))
                if found.frozen:
                    report.frozen.append((path, fw))
                    logger.info("%s [%s]: outputs frozen on a GPU host, from _freeze/", path, fw)
                report.executed[(path, fw)] = done
            elif pages is None or path in pages:
                lib_root = _lib_snapshot(config, fw, visible)
                cwd = config.build_dir / "eval" / fw / Path(path).parent
                kernel = KernelEnv(
                    fw,
                    env.kernel_name,
                    (str(env.kernels_dir),),
                    cwd,
                    (str(lib_root),),
                    {**env.spec.kernel_env, "POLYBOOK_TABS": ",".join(config.tabs)},
                    config.cell_timeout,
                    inventory.gpus,
                )
                expected = timings.get(f"{path}|{fw}", 0.0)
                jobs.append(Job(path, fw, key, nb, kernel, expected, requirements[fw]))
    return jobs


def _version(env: envs.Environment) -> str:
    """The framework's version: as installed here, else as pinned (``torch 2.5.1``)."""
    installed = env.framework_version()
    if installed or not env.requirements.is_file():
        return installed
    names = env.spec.distribution
    for pin in envs.pins(env.requirements):
        name, _, version = pin.partition("==")
        if name in names:
            return f"{name} {version}"
    return ""


def _existing(env: envs.Environment) -> bool:
    return isinstance(env, ExistingEnvironment)


def _classes(
    config: BookConfig, environments: dict[str, envs.Environment], inventory: Inventory
) -> dict[str, str]:
    """Each framework's device class here: ``cuda`` with GPUs, unless ``device = cpu`` put
    polybook's CPU builds of the frameworks in their venvs (an existing environment is
    taken as the host's)."""
    return {
        fw: devices.host_class(inventory.gpus, config.device != "cpu" or _existing(env))
        for fw, env in environments.items()
    }


def _report_skipped(nb: NotebookNode, path: str, fw: str, reporter: Reporter) -> int:
    """Warn once per cell that was not run for want of devices; returns how many."""
    count = 0
    for number, cell in enumerate((c for c in nb.cells if c.cell_type == "code"), start=1):
        meta = cell_meta(cell)
        if meta.skipped:
            count += 1
            where = Location(path, meta.line, fw, number)
            reporter.warn(where, f"not run: {meta.skipped}", "exec.devices")
    return count


def _executor(
    config: BookConfig, inventory: Inventory | None
) -> tuple[LocalExecutor | DaskExecutor, Inventory, int]:
    """The executor the configuration names, the devices it offers, and jobs at once."""
    if config.executor == "dask":
        from polybook.execution.dask_executor import DaskExecutor, resource_bundle

        if not config.dask_scheduler:
            message = (
                "executor = dask needs the scheduler's address (`--scheduler tcp://HOST:PORT`)"
            )
            raise PolybookError(Location("[build] dask_scheduler"), message, "exec.dask")
        dask = DaskExecutor(config.dask_scheduler, resource_bundle(config))
        return dask, inventory or dask.inventory(), config.jobs or dask.slots()
    local = LocalExecutor(config.effective_jobs, config.build_dir / "work")
    allotted = devices.allotment()
    chosen = inventory or Inventory(allotted.count, config.gpu_share, devices=allotted.ids)
    return local, chosen, config.effective_jobs


def build_eval(
    config: BookConfig,
    notebooks: Notebooks,
    libraries: dict[str, list[SavedBlock]],
    reporter: Reporter,
    pages: set[str] | None = None,
    inventory: Inventory | None = None,
) -> EvalReport:
    """Execute (or take from the cache) every notebook; failures are reported, not raised."""
    report = EvalReport()
    cache = execution_cache(config)
    timings = _timings(config)
    ready = tuple(fw for fw in notebooks if fw in libraries)
    for fw in [fw for fw in ready if not config.framework(fw).declared]:
        where = key_location(config.root, "build", "tabs", fw)
        reporter.error(envs.undeclared(config.framework(fw), where))
        for path, nb in notebooks[fw]:
            report.executed[(path, fw)] = nb  # rendered without outputs
    ready = tuple(fw for fw in ready if config.framework(fw).declared)
    if config.executor == "dask":  # the workers hold the environments; here, their pins
        root, device = envs.envs_root(config.envs_dir), envs.resolve_device(config.device)
        environments = {fw: envs.book_environment(config, fw, device, root) for fw in ready}
    else:
        found = envs.ensure_all(config, ready)
        environments = {e.framework: e for e in found}
    executor, inventory, slots = _executor(config, inventory)
    report.classes = _classes(config, environments, inventory)
    try:
        jobs = _plan(
            config,
            notebooks,
            libraries,
            environments,
            cache,
            inventory,
            timings,
            pages,
            report,
            reporter,
        )
        if jobs:
            _run(
                config,
                jobs,
                executor,
                inventory,
                slots,
                environments,
                cache,
                timings,
                report,
                reporter,
            )
    finally:
        executor.shutdown()
    _write_executed(config, report)
    return report


def _run(
    config: BookConfig,
    jobs: list[Job],
    executor: Executor,
    inventory: Inventory,
    slots: int,
    environments: dict[str, envs.Environment],
    cache: ExecutionCache,
    timings: dict[str, float],
    report: EvalReport,
    reporter: Reporter,
) -> None:
    """Run ``jobs``; each result goes into ``report``, the cache and the timings."""
    from polybook.execution.progress import BuildProgress

    versions = {fw: _version(env) for fw, env in environments.items()}

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
        skipped = _report_skipped(result.notebook, job.path, job.framework, reporter)
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
            reporter.warn(where, f"not published to {config.cache}: {exc}", "exec.cache")
        report.ran.append((job.path, job.framework, result.seconds))
        timings[f"{job.path}|{job.framework}"] = result.seconds

    with BuildProgress(len(jobs)) as progress:

        def on_finish(result: JobResult) -> None:
            finished(result)
            progress.on_finish(result)

        try:
            Scheduler(executor, inventory, slots, progress.on_start, on_finish).run(jobs)
        finally:
            write_atomic(
                config.build_dir / "cache" / "timings.json",
                json.dumps(timings, indent=1, sort_keys=True),
            )
    if logger.isEnabledFor(logging.INFO):
        progress.console.print(progress.table())
        for fw, env in environments.items():
            if isinstance(env, ExistingEnvironment):
                progress.console.print(f"{fw} ran in {env.describe()}", soft_wrap=True)


def _write_executed(config: BookConfig, report: EvalReport) -> None:
    """``_build/eval/<framework>/<page>.ipynb``; an index of content hashes skips the same."""
    index_file = config.build_dir / "eval" / "index.json"
    try:
        index: dict[str, str] = json.loads(index_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        index = {}
    for (path, fw), nb in report.executed.items():
        out = config.build_dir / "eval" / fw / (path.removesuffix(".md") + ".ipynb")
        name = out.relative_to(config.build_dir).as_posix()
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
