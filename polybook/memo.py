"""Results of a step kept in the process, by a digest of everything the step reads.

A one-shot build computes each result once; ``polybook serve`` keeps its process between
rebuilds, so that an edit to one page redoes that page's steps alone: the other pages'
cleaned notebooks, plain downloads and citations come back by content, not by time. What a
step reported (its warnings) is kept with its result and reported again on each use, so that
a rebuild shows what a cold build would. Results are shared, not copied: a step memoised here
returns what its callers only read.

This is the one way a process keeps results: a step that reports (:class:`Memo`), one keyed by
the very objects it read (:class:`HeldMemo`), a pure function of hashable arguments
(:func:`memoised`, in place of ``functools.lru_cache``), and what was read of files while they
are unchanged (:class:`FileMemo`). ``functools.cache`` is left to what is
constant while the installed tool runs on one host (plugin registries, the tool's catalogs, the
host's GPUs): see ``docs/architecture.md``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, Generic, ParamSpec, TypeVar

from polybook.diagnostics import Diagnostic, Reporter

T = TypeVar("T")
P = ParamSpec("P")
_KEYWORDS = object()  # marks a key made with keyword arguments (no positional tuple holds it)


def digest(*parts: Any) -> str:
    """A digest of JSON-able ``parts`` (notebooks, strings, numbers, lists of them)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Memo(Generic[T]):
    """The last ``size`` results of one step, each with the diagnostics it reported. Threads
    may share it: what is kept is looked up and kept under a lock (a result is computed
    outside it, so two threads may compute one key at once; the later is kept)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.kept: OrderedDict[Hashable, tuple[T, tuple[Diagnostic, ...]]] = OrderedDict()
        self.hits = self.misses = 0
        self._lock = threading.Lock()

    def _found(
        self, key: Hashable, fresh: Callable[[T], bool]
    ) -> tuple[T, tuple[Diagnostic, ...]] | None:
        with self._lock:
            found = self.kept.get(key)
            if found is None or not fresh(found[0]):
                self.misses += 1
                return None
            self.hits += 1
            self.kept.move_to_end(key)
            return found

    def _keep(self, key: Hashable, kept: tuple[T, tuple[Diagnostic, ...]]) -> None:
        with self._lock:
            self.kept[key] = kept
            self.kept.move_to_end(key)
            if len(self.kept) > self.size:
                self.kept.popitem(last=False)

    def get(
        self,
        key: Hashable,
        compute: Callable[[Reporter], T],
        reporter: Reporter,
        fresh: Callable[[T], bool] = lambda _: True,
    ) -> T:
        """The result kept for ``key``, else ``compute``'s (given a reporter that collects);
        either way its diagnostics go to ``reporter``. ``fresh``: whether a kept result still
        holds (what it read besides its key, such as files, unchanged)."""
        found = self._found(key, fresh)
        if found is None:
            collected = Reporter(quiet=True)
            found = (compute(collected), tuple(collected.diagnostics))
            self._keep(key, found)
        reporter.forward(found[1])
        return found[0]

    def value(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The result kept for ``key``, else ``compute``'s: a step that reports nothing."""
        found = self._found(key, lambda _: True)
        if found is not None:
            return found[0]
        made = compute()
        self._keep(key, (made, ()))
        return made

    def keep(self, key: Hashable, result: T) -> None:
        """Keep ``result`` for ``key`` (one made otherwise: what was just written)."""
        self._keep(key, (result, ()))

    def entry(self, key: str) -> tuple[str, tuple[T, tuple[Diagnostic, ...]]] | None:
        """What is kept for ``key`` (for :meth:`put` in another process), or None."""
        found = self.kept.get(key)
        return None if found is None else (key, found)

    def put(self, key: str, kept: tuple[T, tuple[Diagnostic, ...]]) -> None:
        """Keep what another process computed for ``key`` (see :meth:`entry`)."""
        if key not in self.kept:
            self._keep(key, kept)

    def clear(self) -> None:
        with self._lock:
            self.kept.clear()


class Memoised(Generic[P, T]):
    """A pure function whose last ``size`` results a :class:`Memo` keeps by its arguments
    (hashable, as ``functools.lru_cache`` takes them); callers only read what it returns."""

    def __init__(self, function: Callable[P, T], size: int) -> None:
        self.function = function
        self.memo: Memo[T] = Memo(size)
        functools.update_wrapper(self, function)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T:
        key = (_KEYWORDS, args, tuple(sorted(kwargs.items()))) if kwargs else args
        return self.memo.value(key, lambda: self.function(*args, **kwargs))


def memoised(size: int) -> Callable[[Callable[P, T]], Memoised[P, T]]:
    """Keep the last ``size`` results of the function decorated (see :class:`Memoised`)."""

    def wrap(function: Callable[P, T]) -> Memoised[P, T]:
        return Memoised(function, size)

    return wrap


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

    @property
    def hits(self) -> int:
        return self.memo.hits

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


Stamp = tuple[int, int, int, int] | None  # a file's inode, size, modification and change times


def _stamp(path: Path) -> Stamp:
    """What :class:`FileMemo` keys a file by: a file written again (in place or renamed
    over) changes it. None where ``path`` cannot be read."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


class FileMemo(Generic[T]):
    """Results of reading files, kept while every file read has the stamp it had: a
    process that builds again (``polybook serve``) reads again only what an edit wrote.
    ``key`` says what else the result depends on."""

    def __init__(self, size: int) -> None:
        self.memo: Memo[T] = Memo(size)

    def _key(self, paths: Sequence[Path], key: Hashable) -> Hashable:
        return tuple((str(p), _stamp(p)) for p in paths), key

    def value(self, paths: Sequence[Path], compute: Callable[[], T], key: Hashable = ()) -> T:
        """The result kept for ``paths`` as they are now, else ``compute``'s."""
        return self.memo.value(self._key(paths, key), compute)

    def stamped(self, path: str, stamp: Stamp, compute: Callable[[], T]) -> T:
        """:meth:`value` for one file whose stamp the caller has (a folder's walk)."""
        return self.memo.value((((path, stamp),), ()), compute)

    def known(self, paths: Sequence[Path], key: Hashable = ()) -> T | None:
        """The result kept for ``paths`` as they are now, or None."""
        found = self.memo._found(self._key(paths, key), lambda _: True)
        return None if found is None else found[0]

    def put(self, paths: Sequence[Path], result: T, key: Hashable = ()) -> None:
        """Keep ``result`` for ``paths`` as they are now (a result that was just written)."""
        self.memo.keep(self._key(paths, key), result)
