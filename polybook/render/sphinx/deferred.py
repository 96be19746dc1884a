"""What the Sphinx process ``polybook serve`` keeps writes once it has said a build is done.

Each Sphinx build pickles its whole environment (d2l-en's: 3.8 MB) before it writes the
pages, and dumps the whole search index and the object inventory after them; none of it is
read by the pages an edit writes. In a kept process (:func:`defer`) these wait until the
process has answered that the build is done (the edited page reaches the browser without
them), then are written (:func:`run_deferred`, see :mod:`.run` for when), before the
process builds again, and before it ends: the caller ends it by closing its input, and
waits (see :mod:`.process`). Each file is written whole or not at all (a temporary file,
renamed), so a process killed meanwhile leaves the last build's files: the next build
reads again the pages they are older than. A one-shot build writes them in place, as
Sphinx does.
"""

from __future__ import annotations

import io
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx import builders
from sphinx.application import ENV_PICKLE_FILENAME
from sphinx.environment import BuildEnvironment

from polybook.fsutil import write_atomic

# Emitted in a kept process while it waits for its first build, once the render core has
# warmed its own: an output's extension warms what its first page would make.
KEPT_WARMING = "polybook-kept-warming"

_TASKS: list[Callable[[], None]] = []
_LAST: list[Callable[[], None]] = []
_ACTIVE = [False]


def defer() -> None:
    """From now on, this process's builds leave their late files to :func:`run_deferred`."""
    _ACTIVE[0] = True
    _install()


def deferring() -> bool:
    return _ACTIVE[0]


def later(task: Callable[[], None], last: bool = False) -> bool:
    """Keep ``task`` for :func:`run_deferred` if builds defer (True), else False. ``last``:
    after the others (the environment: a process killed before it is written leaves the
    older one, and the next build reads again, and writes, the pages it is older than)."""
    if _ACTIVE[0]:
        (_LAST if last else _TASKS).append(task)
    return _ACTIVE[0]


def pending() -> int:
    return len(_TASKS) + len(_LAST)


def run_deferred() -> None:
    """The late files of the last build, written in the order they were deferred (those
    deferred ``last`` after the others)."""
    for tasks in (_TASKS, _LAST):
        while tasks:
            tasks.pop(0)()


class _EnvironmentFile(io.BytesIO):
    """Stands for ``environment.pickle`` while builds defer: nothing written to it."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path


def _write_environment(env: BuildEnvironment, path: Path) -> None:
    write_atomic(path, pickle.dumps(env, pickle.HIGHEST_PROTOCOL))


class _Pickle:
    """``pickle`` as :mod:`sphinx.builders` sees it: the environment's dump is deferred."""

    def __getattr__(self, name: str) -> Any:
        return getattr(pickle, name)

    def dump(self, obj: Any, file: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(file, _EnvironmentFile) and isinstance(obj, BuildEnvironment):
            later(lambda: _write_environment(obj, file.path), last=True)
            return
        pickle.dump(obj, file, *args, **kwargs)


def _open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
    """``open`` as :mod:`sphinx.builders` sees it: the environment's file is not
    truncated while builds defer."""
    named = isinstance(file, (str, os.PathLike))
    if _ACTIVE[0] and named and "w" in mode and os.path.basename(file) == ENV_PICKLE_FILENAME:
        return _EnvironmentFile(Path(file))
    return open(file, mode, *args, **kwargs)


def _install() -> None:
    """Sphinx pickles the environment inline in ``Builder.build``: its module's ``open`` and
    ``pickle`` are given the ones above (once per process)."""
    namespace = vars(builders)
    namespace["open"] = _open
    namespace["pickle"] = _Pickle()
