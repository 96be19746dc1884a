"""The parts of outputs that differ from one run to the next and say nothing of a change:
memory addresses, timings, progress bars; ``[drift] volatile`` picks the groups, ``[drift]
ignore`` adds patterns. Each is replaced by a placeholder before outputs are compared."""

from __future__ import annotations

import re
from dataclasses import dataclass

from polybook.config.schema.drift import VOLATILE

_NUMBER = r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
_UNITS = r"(?:ns|µs|μs|us|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?)"

GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "addresses": ((r"0x[0-9a-fA-F]{4,}", "0x…"),),
    "timings": (
        (r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?", "<date>"),
        (r"(?<![\w:])\d{1,2}:\d\d:\d\d(?:\.\d+)?(?![\w:])", "<clock>"),
        (rf"{_NUMBER}\s?(?:[A-Za-z]+/{_UNITS}|{_UNITS}/(?:it|step|batch|epoch))\b", "<rate>"),
        (rf"{_NUMBER}\s?{_UNITS}(?![\w/])", "<time>"),
        (rf"{_NUMBER} loops? each", "<loops> each"),  # %timeit picks the count
    ),
    "progress": (
        (r"\d{1,3}%\s?\|[^|\n]*\|", "<progress>"),  # tqdm: 40%|████      |
        (r"\d+/\d+\s?\[[^\]\n]*<[^\]\n]*\]", "<progress>"),  # tqdm: 4/10 [00:01<00:02, …]
        (r"\[[=>.]*[=>][=>.]*\]", "<progress>"),  # Keras: [=====>........]
        (r"\s-\sETA:\s\S+", ""),
    ),
}


@dataclass(frozen=True)
class Volatile:
    """The replacements of the chosen groups and patterns, in order."""

    rules: tuple[tuple[re.Pattern[str], str], ...] = ()
    overwrite: bool = False  # keep what the last carriage return of a line left

    @classmethod
    def of(cls, groups: tuple[str, ...], ignore: tuple[str, ...] = ()) -> Volatile:
        rules = [(re.compile(p), r) for g in VOLATILE if g in groups for p, r in GROUPS[g]]
        rules += [(re.compile(p), "<ignored>") for p in ignore]
        return cls(tuple(rules), "progress" in groups)

    def clean(self, text: str) -> str:
        """``text`` with its volatile parts replaced."""
        if self.overwrite and "\r" in text:
            lines = text.replace("\r\n", "\n").split("\n")
            text = "\n".join(line.rstrip("\r").rpartition("\r")[2] for line in lines)
        for pattern, replacement in self.rules:
            text = pattern.sub(replacement, text)
        return text
