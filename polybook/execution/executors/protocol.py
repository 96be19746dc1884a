"""What an executor is to a build: the :class:`Executor` protocol the scheduler hands jobs
to, and what an executor's factory (``create`` in its module, registered in
:mod:`polybook.config.executors`) returns: the :class:`ExecutorSetup`."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from polybook.execution.jobs import Inventory, Job, JobResult

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection, Section


class Executor(Protocol):
    """Runs a job somewhere and hands back its result."""

    # True: jobs run on this host, in environments set up here beside the book's resources
    # placed here; False: elsewhere (the workers hold the environments) or nowhere.
    on_this_host: bool

    def expect(self, jobs: list[Job]) -> None:
        """The jobs to come, in the order they will be submitted: an executor may get ready
        for them (start their environments' kernels ahead of time)."""

    def submit(self, job: Job) -> Future[JobResult]: ...

    def cancel(self) -> None:
        """Stop every job in flight (their futures end as ``cancelled``)."""

    def shutdown(self) -> None:
        """Release what it holds (worker processes, a cluster's connection)."""


@dataclass(frozen=True)
class ExecutorSetup:
    """An executor made for a build: the executor, the devices it offers (the inventory
    the scheduler places jobs on) and how many jobs it runs at once."""

    executor: Executor
    inventory: Inventory
    slots: int


class ExecutorFactory(Protocol):
    """An executor's ``create``: the executor ``[build]`` asks for; ``inventory`` (None:
    the executor's own) overrides the devices. What only one executor uses (the local
    one's zygotes started ahead) it finds in its own setup."""

    def __call__(
        self, book: Book, build: BuildSection, inventory: Inventory | None
    ) -> ExecutorSetup: ...


class ConfiguredFactory(Protocol):
    """The ``create`` of an executor that declares its own section
    (``Registered.section``, ``[executor-<name>]``): it takes that section's values too."""

    def __call__(
        self, book: Book, build: BuildSection, inventory: Inventory | None, settings: Section
    ) -> ExecutorSetup: ...


class WorkerStart(Protocol):
    """The ``start_worker`` of an executor's worker module (``Registered.worker``): this host
    becomes one of its workers, with its section's values (None: it declares no section),
    ``nthreads`` jobs at once (0: the CPUs), the environments of ``envs_dir`` and ``gpus``
    GPUs (None: all). It returns an exit status where it returns at all."""

    def __call__(
        self, settings: Section | None, nthreads: int, envs_dir: str, gpus: int | None
    ) -> int: ...
