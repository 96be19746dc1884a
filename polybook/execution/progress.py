"""Live progress while notebooks run, and a table of what ran at the end (rich)."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from polybook.execution.jobs import Job, JobResult


class BuildProgress:
    """Scheduler hooks that draw a live display on a terminal (nothing when piped)."""

    def __init__(self, total: int, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]executing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=self.console,
            transient=True,
            disable=not self.console.is_terminal,
        )
        self.task = self.progress.add_task("", total=total)
        self.running: dict[str, float] = {}
        self.results: list[JobResult] = []

    def __enter__(self) -> BuildProgress:
        self.progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.progress.stop()

    def _describe(self) -> None:
        names = ", ".join(sorted(self.running))
        self.progress.update(self.task, description=names)

    def on_start(self, job: Job) -> None:
        self.running[job.name] = time.monotonic()
        self._describe()

    def on_finish(self, result: JobResult) -> None:
        self.running.pop(result.job.name, None)
        self.results.append(result)
        self.progress.advance(self.task)
        self._describe()

    def table(self) -> Table:
        table = Table(title="notebooks executed", title_justify="left")
        for column in ("page", "framework", "seconds", "GPUs", "status"):
            table.add_column(column, justify="right" if column in {"seconds", "GPUs"} else "left")
        for result in sorted(self.results, key=lambda r: -r.seconds):
            style = "" if result.status == "ok" else "red"
            named = result.job.env.device_ids or tuple(str(g) for g in result.gpus)
            gpus = ",".join(named) or "-"
            table.add_row(
                result.job.path,
                result.job.framework,
                f"{result.seconds:.1f}",
                gpus,
                result.status,
                style=style,
            )
        return table
