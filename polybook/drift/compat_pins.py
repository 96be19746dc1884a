"""The pins of a ``polybook compat`` target, resolved by the installer, never guessed: the
framework's own pins, with its distributions and the packages that move with them let free
to take the newest release the package index offers (``newest``), or held to the versions a
named target's file gives (``colab = requirements/colab.txt``); every other package keeps
its pin where the resolution allows. uv resolves (``uv pip compile``), given the sources pip
is configured with, as it installs."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from polybook.diagnostics import Location, PolybookError
from polybook.environments import installer, sources
from polybook.environments.packages import canonical
from polybook.fsutil import write_atomic

# The packages that must move with a framework's distribution: a newer torch wants the
# torchvision built for it, a newer jax its jaxlib and the libraries written for it.
MOVES_WITH: dict[str, tuple[str, ...]] = {
    "torch": ("torchvision", "torchaudio", "torchtext"),
    "jax": ("jaxlib", "flax", "optax", "chex", "orbax-checkpoint"),
    "tensorflow": ("keras", "tensorflow-probability"),
    "tensorflow-cpu": ("keras", "tensorflow-probability"),
    "mxnet": (),
}
PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==\s*([^\s;#]+)")


@dataclass(frozen=True)
class ResolvedPins:
    """A target's resolved pins: the file, its versions by canonical name, its digest."""

    path: Path
    versions: dict[str, str]

    @property
    def digest(self) -> str:
        text = "\n".join(f"{k}=={v}" for k, v in sorted(self.versions.items()))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_pins(path: Path) -> dict[str, str]:
    """The ``name==version`` pins of a requirement file, by canonical name."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            found[canonical(match.group(1))] = match.group(2)
    return found


def moving(distributions: Iterable[str], pinned: Iterable[str]) -> list[str]:
    """The framework's distributions and what moves with them, of those ``pinned``."""
    names = {canonical(d) for d in distributions}
    names |= {canonical(m) for d in list(names) for m in MOVES_WITH.get(d, ())}
    return sorted(names & {canonical(p) for p in pinned})


def target_pins(file: Path, distributions: tuple[str, ...], pinned: dict[str, str]) -> Path:
    """A named target's pins as constraints of one framework's: a version the target gives
    any of the framework's distributions (``tensorflow``) holds the one its pins name
    (``tensorflow-cpu``, the CPU build of the same release). Written beside ``file``'s
    resolution, in the build folder's temporary place."""
    found = read_pins(file)
    names = [canonical(d) for d in distributions]
    given = next((found[n] for n in names if n in found), "")
    for name in names:
        if given and name in pinned:
            found[name] = given
    text = _lines(found)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    out = Path(tempfile.gettempdir()) / f"polybook-compat-{digest}.txt"
    write_atomic(out, text)
    return out


def _uv() -> tuple[Path, list[str], dict[str, str]]:
    uv = installer.find_uv()
    if uv is None:
        where = Location("polybook compat")
        raise PolybookError(where, "uv resolves the targets' pins: pip install uv", "compat")
    try:
        settings = sources.read(Path(sys.executable))
    except OSError:
        settings = {}
    return uv, sources.uv_options(settings), sources.uv_environ(settings, os.environ)


def _compile(command: list[str], environ: dict[str, str], where: Path) -> None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=environ, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        done = subprocess.CompletedProcess(command, 1, "", str(exc))
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-12:])
        message = f"the installer found no pins:\n{tail}"
        raise PolybookError(Location(str(where)), message, "compat.resolve")


def _lines(pins: dict[str, str]) -> str:
    return "".join(f"{k}=={v}\n" for k, v in sorted(pins.items()))


def resolve(
    current: Path, upgrade: list[str], constraints: Path | None, out: Path, python: str
) -> ResolvedPins:
    """Resolve the packages of ``current`` (a pinned requirement file) again, written at
    ``out``: with ``constraints`` (a named target's versions) over them, else with those of
    ``upgrade`` at the newest releases that go together (resolved alone first, then held
    there); the other packages kept at their pins where the resolution allows."""
    pinned = read_pins(current)
    uv, options, environ = _uv()
    base = [str(uv), "pip", "compile", "--no-config", "--quiet", "--no-header"]
    base += ["--no-annotate", "--python-version", python, *options]
    with tempfile.TemporaryDirectory(prefix="polybook-compat-") as temp:
        folder = Path(temp)
        if constraints is None:
            alone, newest = folder / "moving.in", folder / "moving.txt"
            alone.write_text("".join(f"{n}\n" for n in upgrade), encoding="utf-8")
            _compile([*base, str(alone), "--output-file", str(newest)], environ, current)
            found = read_pins(newest)
            constraints = folder / "constraints.txt"
            constraints.write_text(_lines({n: found[n] for n in upgrade if n in found}))
        names = folder / "requirements.in"
        names.write_text("".join(f"{n}\n" for n in sorted(pinned)), encoding="utf-8")
        held = read_pins(constraints)
        preferred = folder / "resolved.txt"  # uv keeps an output file's pins where it can
        preferred.write_text(_lines({k: v for k, v in pinned.items() if k not in held}))
        command = [*base, str(names), "--output-file", str(preferred)]
        command += ["--constraint", str(constraints)]
        for name in sorted(set(upgrade) | set(held)):
            command += ["--upgrade-package", name]
        _compile(command, environ, constraints)
        text = preferred.read_text(encoding="utf-8")
    write_atomic(out, text)
    return ResolvedPins(out, read_pins(out))
