"""Plugins from outside the tree: an installed package adds an output or an executor through
an entry point (``polybook.outputs``, ``polybook.executors``), as Sphinx's
``sphinx.builders`` or MyST-NB's ``myst_nb.renderers`` do.

An entry point names one object (``package.module:OBJECT``) of the kind its group takes; its
name is the plugin's name (``polybook build <name>``, ``[build] executor = <name>``). A plugin
that does not load, or that gives something else, is an error naming its package and entry
point, not a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import TypeVar

from polybook.diagnostics import Location, PolybookError

OUTPUTS_GROUP = "polybook.outputs"
EXECUTORS_GROUP = "polybook.executors"
GROUPS = (OUTPUTS_GROUP, EXECUTORS_GROUP)

T = TypeVar("T")


@dataclass(frozen=True)
class Plugin:
    """One entry point of an installed package: its group, name, target and package."""

    group: str
    name: str
    value: str
    package: str

    def __str__(self) -> str:
        return f"{self.package}: {self.group} {self.name} = {self.value}"


def _plugin(group: str, point: EntryPoint) -> Plugin:
    dist = point.dist
    package = f"{dist.name} {dist.version}" if dist is not None else "an unnamed package"
    return Plugin(group, point.name, point.value, package)


@cache
def installed() -> dict[str, tuple[EntryPoint, ...]]:
    """The entry points of polybook's groups installed, as the process found them (the
    packages are read once for all groups: each read walks every installed package)."""
    everything = entry_points()
    return {group: tuple(everything.select(group=group)) for group in GROUPS}


def found(group: str) -> list[tuple[Plugin, EntryPoint]]:
    """The entry points of ``group`` installed, each once, by name."""
    seen: dict[str, tuple[Plugin, EntryPoint]] = {}
    for point in installed().get(group, ()):
        seen.setdefault(point.name, (_plugin(group, point), point))
    return [seen[name] for name in sorted(seen)]


def listed() -> list[Plugin]:
    """Every plugin installed (for ``polybook doctor``), loading none."""
    return [plugin for group in GROUPS for plugin, _ in found(group)]


Load = Callable[[Plugin, EntryPoint], T]  # one plugin's object, checked


def load(group: str, one: Load[T]) -> dict[str, T]:
    """The objects the entry points of ``group`` name, by entry point name, each loaded by
    ``one`` (:func:`load_one` with its group's checks)."""
    return {plugin.name: one(plugin, point) for plugin, point in found(group)}


def load_one(
    plugin: Plugin,
    point: EntryPoint,
    kind: type[T],
    taken: frozenset[str],
    named: Callable[[T], str] | None = None,
) -> T:
    """The object ``plugin``'s entry point names; an error naming it where that does not
    load, is no ``kind``, takes a name in ``taken`` (polybook's own), or calls itself
    (``named``) otherwise than its entry point."""
    try:
        target = point.load()
    except Exception as exc:  # a plugin's import may fail in any way: say which plugin
        raise broken(plugin, f"does not load: {type(exc).__name__}: {exc}") from None
    if not isinstance(target, kind):
        given = type(target).__name__
        raise broken(plugin, f"names a {given} where {plugin.group} takes a {kind.__name__}")
    if plugin.name in taken:
        raise broken(plugin, f"takes the name of polybook's own {plugin.name!r}")
    if named is not None and named(target) != plugin.name:
        raise broken(plugin, f"names the {kind.__name__} {named(target)!r}, not {plugin.name!r}")
    return target


def broken(plugin: Plugin, why: str) -> PolybookError:
    """The error of a plugin that cannot be used."""
    where = Location(f"plugin {plugin.package}")
    message = f"entry point {plugin.group} {plugin.name} = {plugin.value} {why}"
    return PolybookError(where, message, "plugin")
