"""The frameworks' pinned requirement sets as the library's package reads them: the
versions of a framework's CPU set, a distribution's exact pin line for a device, and a
distribution's name as the pins spell it."""

from __future__ import annotations

from pathlib import Path

from polybook import frameworks
from polybook.config.declarations import SHIPPED
from polybook.config.requirements import normalized_pin, pins
from polybook.frameworks import Framework
from polybook.memo import memoised


def pin_name(name: str) -> str:
    """``tensorflow_cpu`` -> ``tensorflow``: a distribution as the pins name it."""
    return normalized_pin(f"{name}==0").partition("==")[0]


def cpu_pins(framework: str | Framework) -> dict[str, str]:
    """Distribution -> version of the framework's pinned CPU set ({} when it has none)."""
    path = _declared(framework).requirements("cpu")
    try:
        info = path.stat()
    except OSError:
        return {}
    return dict(_pins_read(str(path), (info.st_mtime_ns, info.st_size)))


@memoised(256)  # once per file while it is the same (serve's rebuilds)
def _pins_read(path: str, stamp: tuple[int, int]) -> tuple[tuple[str, str], ...]:
    return tuple(tuple(p.partition("==")[::2]) for p in pins(Path(path)))  # type: ignore[misc]


def _declared(framework: str | Framework) -> Framework:
    if isinstance(framework, Framework):
        return framework
    return frameworks.lookup(SHIPPED, framework)


def requirement_line(framework: str | Framework, name: str, device: str) -> str:
    """``name``'s exact pin: as the CUDA set spells it (``jax[cuda12]==…``), or by its plain
    name (``tensorflow==…``, not the CPU set's ``tensorflow_cpu``)."""
    if device == "cpu":
        return f"{name}=={cpu_pins(framework)[name]}"
    path = _declared(framework).requirements(device)
    for line in path.read_text(encoding="utf-8").splitlines():
        pin = line.strip() and not line.lstrip().startswith("#")
        if pin and normalized_pin(line).partition("==")[0] == name:
            return line.strip()
    return f"{name}=={cpu_pins(framework)[name]}"
