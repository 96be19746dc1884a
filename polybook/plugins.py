"""Plugins from outside the tree: an installed package adds an output or an executor through
an entry point (``polybook.outputs``, ``polybook.executors``), as Sphinx's
``sphinx.builders`` or MyST-NB's ``myst_nb.renderers`` do.

An entry point names one object (``package.module:OBJECT``) of the kind its group takes; its
name is the plugin's name (``polybook build <name>``, ``[build] executor = <name>``). A plugin
that does not load, or that gives something else, is an error naming its package and entry
point, not a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
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


def found(group: str) -> list[tuple[Plugin, EntryPoint]]:
    """The entry points of ``group`` installed, each once, by name."""
    seen: dict[str, tuple[Plugin, EntryPoint]] = {}
    for point in entry_points(group=group):
        seen.setdefault(point.name, (_plugin(group, point), point))
    return [seen[name] for name in sorted(seen)]


def listed() -> list[Plugin]:
    """Every plugin installed (for ``polybook doctor``), loading none."""
    return [plugin for group in GROUPS for plugin, _ in found(group)]


def load(group: str, kind: type[T], taken: frozenset[str] = frozenset()) -> dict[str, T]:
    """The objects the entry points of ``group`` name, by entry point name; each must be a
    ``kind`` and take no name in ``taken`` (polybook's own)."""
    return {plugin.name: load_one(plugin, point, kind, taken) for plugin, point in found(group)}


def load_one(plugin: Plugin, point: EntryPoint, kind: type[T], taken: frozenset[str]) -> T:
    """The object ``plugin``'s entry point names; an error naming it where that is no
    ``kind`` or does not load."""
    try:
        target = point.load()
    except Exception as exc:  # a plugin's import may fail in any way: say which plugin
        raise broken(plugin, f"does not load: {type(exc).__name__}: {exc}") from None
    if not isinstance(target, kind):
        raise broken(plugin, f"names a {type(target).__name__}, not a {kind.__name__}")
    if plugin.name in taken:
        raise broken(plugin, f"takes the name of polybook's own {plugin.name!r}")
    return target


def broken(plugin: Plugin, why: str) -> PolybookError:
    """The error of a plugin that cannot be used."""
    where = Location(f"plugin {plugin.package}")
    message = f"entry point {plugin.group} {plugin.name} = {plugin.value} {why}"
    return PolybookError(where, message, "plugin")
