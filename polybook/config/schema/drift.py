"""``[drift]``: how ``polybook diff`` and ``polybook upgrade`` compare outputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from polybook.config.schema.key import key

VOLATILE = ("addresses", "timings", "progress")  # the built-in groups (polybook.drift.volatile)


@dataclass(frozen=True)
class DriftSection:
    """``[drift]``: what counts as a changed output."""

    SECTION: ClassVar[str] = "drift"

    rtol: float = key(
        "float",
        1e-5,
        "relative tolerance of numbers in outputs (reprs of arrays and tensors included):"
        " a change within `rtol`·|value| + `atol` is reported as within tolerance",
        d2lbook=False,
        read_by=("diff", "upgrade"),
    )
    atol: float = key(
        "float",
        1e-8,
        "absolute tolerance of numbers in outputs",
        d2lbook=False,
        read_by=("diff", "upgrade"),
    )
    image_threshold: float = key(
        "float",
        0.001,
        "share of an image's pixels that must visibly differ (after a slight blur) for the"
        " image to count as changed",
        d2lbook=False,
        read_by=("diff", "upgrade"),
    )
    volatile: tuple[str, ...] = key(
        "words",
        VOLATILE,
        "parts of outputs that differ from run to run and are ignored: `addresses`"
        " (`0x7f…`), `timings` (`1.2 sec`, `3.4 examples/sec`, dates), `progress` (progress"
        " bars, lines a carriage return overwrote)",
        d2lbook=False,
        choices=VOLATILE,
        read_by=("diff", "upgrade"),
    )
    ignore: tuple[str, ...] = key(
        "patterns",
        (),
        "more parts of outputs to ignore: regular expressions, one a line",
        d2lbook=False,
        read_by=("diff", "upgrade"),
    )


@dataclass(frozen=True)
class CompatSection:
    """``[compat]``: what ``polybook compat`` checks the book against."""

    SECTION: ClassVar[str] = "compat"

    newest: bool = key(
        "bool",
        True,
        "check each framework against its newest release on the package index (with the"
        " packages that move with it: `torchvision` with `torch`, `flax` and `optax` with"
        " `jax`), as the installer resolves it",
        d2lbook=False,
        read_by=("compat",),
    )
    targets: tuple[str, ...] = key(
        "words",
        (),
        "named targets, `NAME=FILE` words: the versions a platform ships (`colab="
        "requirements/colab.txt`), each file's pins put over every framework's own",
        d2lbook=False,
        read_by=("compat",),
    )
