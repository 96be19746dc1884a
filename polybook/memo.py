"""Results of a step kept in the process, by a digest of everything the step reads.

A one-shot build computes each result once; ``polybook serve`` keeps its process between
rebuilds, so that an edit to one page redoes that page's steps alone: the other pages'
cleaned notebooks, plain downloads and citations come back by content, not by time. What a
step reported (its warnings) is kept with its result and reported again on each use, so that
a rebuild shows what a cold build would. Results are shared, not copied: a step memoised here
returns what its callers only read.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from polybook.diagnostics import Diagnostic, Reporter

T = TypeVar("T")


def digest(*parts: Any) -> str:
    """A digest of JSON-able ``parts`` (notebooks, strings, numbers, lists of them)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Memo(Generic[T]):
    """The last ``size`` results of one step, each with the diagnostics it reported."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.kept: OrderedDict[str, tuple[T, tuple[Diagnostic, ...]]] = OrderedDict()
        self.hits = self.misses = 0

    def get(
        self,
        key: str,
        compute: Callable[[Reporter], T],
        reporter: Reporter,
        fresh: Callable[[T], bool] = lambda _: True,
    ) -> T:
        """The result kept for ``key``, else ``compute``'s (given a reporter that collects);
        either way its diagnostics go to ``reporter``. ``fresh``: whether a kept result still
        holds (what it read besides its key, such as files, unchanged)."""
        found = self.kept.get(key)
        if found is None or not fresh(found[0]):
            self.misses += 1
            collected = Reporter(quiet=True)
            found = (compute(collected), tuple(collected.diagnostics))
            self.kept[key] = found
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)
        else:
            self.hits += 1
            self.kept.move_to_end(key)
        reporter.forward(found[1])
        return found[0]

    def entry(self, key: str) -> tuple[str, tuple[T, tuple[Diagnostic, ...]]] | None:
        """What is kept for ``key`` (for :meth:`put` in another process), or None."""
        found = self.kept.get(key)
        return None if found is None else (key, found)

    def put(self, key: str, kept: tuple[T, tuple[Diagnostic, ...]]) -> None:
        """Keep what another process computed for ``key`` (see :meth:`entry`)."""
        if key not in self.kept:
            self.kept[key] = kept
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)

    def clear(self) -> None:
        self.kept.clear()


class HeldMemo(Generic[T]):
    """Results of a step kept while what it read is the very objects it read: results of
    steps kept themselves (a page's parse, a cleaned notebook), whose identity is the key
    (they are held with the result, so no other object takes their ``id``); ``key`` says
    the rest of what the step reads."""

    def __init__(self, size: int) -> None:
        self.memo: Memo[tuple[tuple[object, ...], T]] = Memo(size)

    @property
    def misses(self) -> int:
        return self.memo.misses

    def get(
        self,
        held: tuple[object, ...],
        key: str,
        compute: Callable[[Reporter], T],
        reporter: Reporter,
    ) -> T:
        """The result kept for ``held`` and ``key``, else ``compute``'s (see :meth:`Memo.get`)."""

        def made(found: Reporter) -> tuple[tuple[object, ...], T]:
            return held, compute(found)

        def same(kept: tuple[tuple[object, ...], T]) -> bool:  # as keyed: the same count
            return all(a is b for a, b in zip(kept[0], held, strict=True))

        ids = "\0".join(str(id(thing)) for thing in held)
        return self.memo.get(f"{ids}\0{key}", made, reporter, same)[1]
