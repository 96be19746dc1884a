"""Planning an execution: each notebook's cache key, the run it can take from the cache or
``_freeze/``, and, for those that must run, the job: its kernel, the library snapshot it
imports and its expected duration."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path

from nbformat import NotebookNode

from polybook.config import Book
from polybook.config.requirements import pins
from polybook.config.schema import Edition
from polybook.diagnostics import Location, Reporter
from polybook.environments import devices, venvs
from polybook.environments.existing import ExistingEnvironment
from polybook.execution.cache import CacheKey, ExecutionCache, adopt_outputs
from polybook.execution.frozen_keys import legacy_key
from polybook.execution.frozen_outputs import FrozenOutputs, find_run
from polybook.execution.inputs import Execution
from polybook.execution.jobs import Inventory, Job
from polybook.execution.kernels.launch import kernel_env
from polybook.execution.output_noise import OutputFilter
from polybook.execution.outputs_store import OutputsStore, covered_run
from polybook.fsutil import write_atomic
from polybook.layout import Layout
from polybook.library.head import library_module
from polybook.library.model import SavedBlock
from polybook.library.usage import LibraryUsage, package_init
from polybook.memo import HeldMemo
from polybook.meta import cell_meta, update_notebook_meta
from polybook.nb import Notebooks, copy_notebook

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
    editions: dict[tuple[str, str], str] = field(default_factory=dict)  # runs of an edition's
    stale: list[tuple[str, str]] = field(default_factory=list)  # stale, beyond this host


def edition_caches(editions: tuple[Edition, ...]) -> dict[str, Path]:
    """The local execution caches of the book's other editions (``[edition-<name>]``)."""
    return {e.name: Layout(e.root).exec_cache for e in editions}


def execution_cache(book: Book, shared: str, editions: tuple[Edition, ...]) -> ExecutionCache:
    """``_build/cache/exec``, in front of ``[build] cache`` (``shared``) when that names
    another place."""
    if shared and "://" not in shared:
        shared = str((book.root / Path(shared).expanduser()).resolve())
    return ExecutionCache(book.layout.exec_cache, shared, edition_caches(editions))


def _lib_snapshot(book: Book, fw: str, blocks: list[SavedBlock]) -> Path:
    """The book's d2l package of ``blocks``, under ``_build/lib`` (named by content): what
    the notebooks import, whatever the author does to ``d2l/`` while they run."""
    target = book.library_for(fw)
    text = library_module(book.root / target.lib_file, blocks, book.framework(fw).display_name)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    root = book.layout.lib_snapshots / fw / digest
    write_atomic(root / Path(target.lib_file).parent / "__init__.py", package_init(book, fw))
    write_atomic(root / target.lib_file, text)
    return root


# A notebook with the outputs of its run, kept while both are the very objects they were
# (an unchanged page's notebook, a cache entry whose file is unchanged): a served edit of
# one page copies no other page's outputs again. Later stages fill copies, never these.
ADOPTED: HeldMemo[NotebookNode] = HeldMemo(8192)


def _adopted(
    nb: NotebookNode, run: NotebookNode, code: str, noise: OutputFilter | None
) -> NotebookNode:
    """``nb`` with ``run``'s outputs, its code key noted; ``noise``: the filter a frozen
    run's outputs pass (frozen before it, or with another host's noise)."""

    def adopt(_: Reporter) -> NotebookNode:
        done = adopt_outputs(nb, run)
        if noise is not None:
            noise.clean(done)
        update_notebook_meta(done, code=code)
        return done

    return ADOPTED.get((nb, run), f"{code}\0{noise!r}", adopt, Reporter(quiet=True))


def timings(book: Book) -> dict[str, float]:
    """How long each notebook ran last (``page|framework`` -> seconds)."""
    try:
        data = json.loads(book.layout.timings.read_text(encoding="utf-8"))
        return {str(k): float(v) for k, v in data.items()}
    except (OSError, ValueError):
        return {}


def report_skipped(nb: NotebookNode, path: str, fw: str, reporter: Reporter) -> int:
    """Warn once per cell that was not run for want of devices; returns how many."""
    count = 0
    for number, cell in enumerate((c for c in nb.cells if c.cell_type == "code"), start=1):
        meta = cell_meta(cell)
        if meta.skipped:
            count += 1
            where = Location(path, meta.line, fw, number)
            reporter.warn(where, f"not run: {meta.skipped}", "exec.devices")
    return count


def plan(
    run: Execution,
    notebooks: Notebooks,
    libraries: dict[str, list[SavedBlock]],
    environments: dict[str, venvs.Environment],
    cache: ExecutionCache,
    inventory: Inventory,
    expected: dict[str, float],
    pages: set[str] | None,
    report: EvalReport,
    reporter: Reporter,
    split: Notebooks | None = None,
) -> list[Job]:
    """The notebooks to run; cached and code-free ones go straight into ``report``.
    ``expected`` holds the last runs' durations (:func:`timings`); ``split``: the notebooks
    before the library stage rewrote them (see :class:`OutputsStore`)."""
    book = run.book
    jobs: list[Job] = []
    frozen = None if book.layout.side else FrozenOutputs(book.root)  # a side build runs all
    store = None if book.layout.side else OutputsStore(book.root, split)  # outputs/
    for fw, env in environments.items():
        identity = env.identity()
        usage = LibraryUsage.of(book, fw, libraries[fw])
        snapshot = ""  # the whole library, written when a notebook of fw must run
        for path, nb in notebooks[fw]:
            report.executed[(path, fw)] = nb
            if not any(c.cell_type == "code" for c in nb.cells):
                continue  # nothing to run
            code = CacheKey.of(nb, fw, usage.key(nb), run.figure_format)
            own = report.classes.get(fw, devices.CPU)
            place = (path, fw)
            lent = len(cache.borrowed)
            found = find_run(
                cache,
                frozen,
                place,
                nb,
                code,
                identity,
                own,
                inventory.gpus,
                reporter,
                legacy_key(nb, fw, usage, run.figure_format),
            )
            if found.run is None and store is not None:
                found = replace(found, run=covered_run(store, place, nb, reporter))
            if found.run is not None and len(cache.borrowed) > lent:
                report.editions[place] = cache.borrowed[-1]
            report.codes[place] = found.code
            if found.run is not None:
                noise = None
                if found.frozen:  # frozen before the filter, or with another's noise
                    noise = OutputFilter.of(env.spec.output_noise, run.build.keep_output)
                done = _adopted(nb, found.run, found.code, noise)
                report_skipped(done, path, fw, reporter)
                report.cached.append(place)
                if found.frozen:
                    report.frozen.append(place)
                    logger.debug("%s [%s]: outputs from _freeze/", path, fw)
                report.executed[place] = done
            elif found.stale and declared_gpus(nb) > inventory.gpus:
                report.stale.append(place)
                reporter.warn(
                    Location(path, 0, fw), beyond_host(path, nb, inventory), "freeze.host"
                )
            elif pages is None or path in pages:
                snapshot = snapshot or str(_lib_snapshot(book, fw, libraries[fw]))
                folder = Path(path).parent
                kernel = kernel_env(
                    book,
                    run.build,
                    run.figure_format,
                    env,
                    folder,
                    snapshot,
                    inventory.gpus,
                    inventory.share,
                )
                seconds = expected.get(f"{path}|{fw}", 0.0)
                # Its own copy: an executor may fill it in place (the kept one is read again)
                jobs.append(Job(path, fw, found.key, copy_notebook(nb), kernel, seconds, identity))
    if store is not None:
        store.report_unfetched(reporter)
    return jobs


def declared_gpus(nb: NotebookNode) -> int:
    """The most GPUs a cell of ``nb`` declares (``#@requires gpus=N``): a host with fewer
    cannot run it (a cell whose need is inferred runs anywhere, see the badges)."""
    needs = (cell_meta(c).requires for c in nb.cells if c.cell_type == "code")
    return max((r.gpus for r in needs if r is not None and r.declared), default=0)


def host_class(gpus: int) -> str:
    """The smallest host that runs a notebook needing ``gpus`` GPUs, in words."""
    return "any host (a CPU host)" if gpus <= 0 else f"a host with {_gpus(gpus)}"


def beyond_host(path: str, nb: NotebookNode, inventory: Inventory) -> str:
    """What a build says of a stale frozen notebook this host cannot run."""
    need, have = declared_gpus(nb), inventory.gpus
    return (
        f"not run and shown without outputs: its frozen outputs are stale and it needs"
        f" {_gpus(need)}, this host has {_gpus(have) if have else 'none'};"
        f" {host_class(need)} refreshes it (`polybook build eval {path}`, then"
        f" `polybook freeze {path}`)"
    )


def _gpus(count: int) -> str:
    return f"{count} GPU{'s' if count != 1 else ''}"


def version(env: venvs.Environment) -> str:
    """The framework's version: as installed here, else as pinned (``torch 2.5.1``)."""
    installed = env.framework_version()
    if installed or not env.requirements.is_file():
        return installed
    names = env.spec.distributions
    for pin in pins(env.requirements):
        name, _, number = pin.partition("==")
        if name in names:
            return f"{name} {number}"
    return ""


def device_classes(
    device: str, environments: dict[str, venvs.Environment], inventory: Inventory
) -> dict[str, str]:
    """Each framework's device class here: ``cuda`` with GPUs, unless ``device = cpu`` put
    polybook's CPU builds of the frameworks in their venvs (an existing environment is
    taken as the host's). ``device``: ``[build] device``."""
    return {
        fw: devices.host_class(
            inventory.gpus, device != "cpu" or isinstance(env, ExistingEnvironment)
        )
        for fw, env in environments.items()
    }
