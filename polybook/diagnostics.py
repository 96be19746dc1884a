"""Located errors and warnings: every message reads ``path:line: [framework] cell N: ...``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

logger = logging.getLogger("polybook")


@dataclass(frozen=True)
class Location:
    """A place in an author's source file (1-based line)."""

    path: str
    line: int = 0
    framework: str = ""
    cell: int | None = None

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}" if self.line else self.path
        if self.framework:
            text += f" [{self.framework}]"
        if self.cell is not None:
            text += f" cell {self.cell}"
        return text

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Location:
        cell = data.get("cell")
        return cls(
            str(data["path"]),
            int(data.get("line", 0)),
            str(data.get("framework", "")),
            int(cell) if cell is not None else None,
        )


@dataclass(frozen=True)
class Diagnostic:
    """One warning or error, typed by ``subtype`` (shown as ``[polybook.subtype]``)."""

    location: Location
    message: str
    subtype: str
    severity: str = "warning"

    def __str__(self) -> str:
        return f"{self.location}: {self.message} [polybook.{self.subtype}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location.to_json(),
            "message": self.message,
            "subtype": self.subtype,
            "severity": self.severity,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Diagnostic:
        return cls(
            Location.from_json(data["location"]),
            str(data["message"]),
            str(data["subtype"]),
            str(data.get("severity", "warning")),
        )


class PolybookError(Exception):
    """A user-facing error located in a source file."""

    def __init__(self, location: Location, message: str, subtype: str) -> None:
        self.diagnostic = Diagnostic(location, message, subtype, "error")
        super().__init__(str(self.diagnostic))

    @property
    def location(self) -> Location:
        return self.diagnostic.location

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Every error it stands for (one, unless it is :class:`PolybookErrors`)."""
        return (self.diagnostic,)


class PolybookErrors(PolybookError):
    """Several located errors found at once (every bad value of a file), in order."""

    def __init__(self, errors: Sequence[PolybookError]) -> None:
        first = errors[0].diagnostic
        super().__init__(first.location, first.message, first.subtype)
        self.found = tuple(d for err in errors for d in err.diagnostics)

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.found

    def __str__(self) -> str:
        return "\n".join(str(d) for d in self.found)


def raise_all(errors: Sequence[PolybookError]) -> None:
    """Raise the one error, or all of them at once; nothing when there are none."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise PolybookErrors(errors)


@dataclass
class Reporter:
    """Collects diagnostics of one build; warnings of one kind are reported once per place."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    suppressed: frozenset[str] = frozenset()  # subtypes, e.g. "cite" or "exec" (and below)
    quiet: bool = False  # collect only: another reporter passes them on (a page worker's)

    def is_suppressed(self, subtype: str) -> bool:
        parts = subtype.split(".")
        return any(".".join(parts[:n]) in self.suppressed for n in range(1, len(parts) + 1))

    def warn(self, location: Location, message: str, subtype: str) -> None:
        diag = Diagnostic(location, message, subtype)
        if not self.is_suppressed(subtype) and diag not in self.diagnostics:
            self.diagnostics.append(diag)
            if not self.quiet:
                logger.warning("%s", diag)

    def error(self, err: PolybookError | Diagnostic) -> None:
        for diag in err.diagnostics if isinstance(err, PolybookError) else (err,):
            self.diagnostics.append(diag)
            if not self.quiet:
                logger.error("%s", diag)

    def forward(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Report what was found elsewhere (a page worker, a Sphinx run, the last build):
        errors as errors, warnings as :meth:`warn` reports them."""
        for diag in diagnostics:
            if diag.severity == "error":
                self.error(diag)
            else:
                self.warn(diag.location, diag.message, diag.subtype)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity != "error"]
