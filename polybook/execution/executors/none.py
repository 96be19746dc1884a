"""``executor = none``: nothing runs on this host. Every notebook comes from the execution
cache or ``_freeze/``; one found in neither fails at its page, its last good outputs kept.
What a CI job that builds the outputs from the framework jobs' executions runs, with no
framework installed."""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING

from polybook.diagnostics import Diagnostic, Location
from polybook.execution.executors.protocol import ExecutorSetup
from polybook.execution.jobs import Inventory, Job, JobResult

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection


def create(book: Book, build: BuildSection, inventory: Inventory | None) -> ExecutorSetup:
    """``executor = none``: no devices unless given, one job at a time."""
    return ExecutorSetup(NoExecutor(), inventory or Inventory(), 1)


class NoExecutor:
    """An executor that runs nothing: each job fails, saying which command executes it."""

    on_this_host = False  # no environment is needed: their pins name the runs

    def expect(self, jobs: list[Job]) -> None:
        """Nothing gets ready."""

    def submit(self, job: Job) -> Future[JobResult]:
        message = (
            "not executed: the execution cache has no run of this notebook's code in this"
            " environment, and executor = none runs nothing here; `polybook build eval --tab"
            f" {job.framework}` with the same cache executes it"
        )
        where = Location(job.path, 0, job.framework)
        failed = JobResult(job, "error", error=Diagnostic(where, message, "exec.uncached", "error"))
        future: Future[JobResult] = Future()
        future.set_result(failed)
        return future

    def cancel(self) -> None:
        """Nothing is in flight."""

    def shutdown(self) -> None:
        """Nothing is held."""
