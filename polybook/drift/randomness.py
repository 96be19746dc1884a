"""Whether a changed output tells of a new release or of chance: a cell whose values differ
after the notebook drew random numbers it never seeded would differ from run to run with
the same release, so its change is reported as ``random``, not as a changed output. Only
values may differ: the same text with its numbers left out (a repr, a dtype, a device
name, an error's message that changed is a change); a plot (SVG) is drawn from the values,
its ticks and paths move with them. Where the book seeds (a seed call
before the cell; JAX's explicit keys) the draws are the same in every run, and a changed
value is a change."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A call that draws from a generator the code does not hold: a framework's global one, or
# a parameter's initializer (made with a layer). JAX's draws take explicit keys: only NumPy's
# global generator and the book library's helpers that draw a fresh key from it are unseeded.
_DRAWS = {
    "jax": r"\bnp\.random\.\w+\(|\bd2l\.(?:rand|randn|normal|uniform)\(",
}
_DRAW_ANY = (
    r"\b(?:np|torch|tf|mx|npx)\.random\.\w+\(|\btorch\.rand\w*\(|\bd2l\.(?:rand|randn|normal|"
    r"uniform)\(|\.(?:normal|uniform)_\(|\bnn\.init\.\w+\(|\bnn\.(?:Lazy)?(?:Linear|Conv\w*|"
    r"Dense|Sequential)\(|\blayers\.\w+\(|\bDense\(|\.initialize\(|\bRandom\w+\(|\bTrainer\("
)
_SEEDS = r"\b(?:manual_seed|set_seed|set_random_seed)\(|\brandom\.seed\("
# A number as the comparison reads it: sign, digits, a point, an exponent.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def unseeded_draw(framework: str, code: Sequence[str]) -> bool:
    """Whether ``code`` (a notebook's cells up to and including the one changed) draws
    random numbers it has not seeded before them."""
    draws = re.compile(_DRAWS.get(framework, _DRAW_ANY))
    seeds = re.compile(_SEEDS)
    for cell in code:
        if seeds.search(cell):
            return False
        if draws.search(cell):
            return True
    return False


def values_only(before: str, after: str) -> bool:
    """Whether two outputs differ only in their numbers (and the spaces that align them)."""

    def shape(text: str) -> str:
        return re.sub(r"\s+", "", _NUMBER.sub("#", text))

    if _is_svg(before) and _is_svg(after):
        return True  # a plot of other values: its ticks and paths move with them
    return shape(before) == shape(after)


def _is_svg(text: str) -> bool:
    return "<svg" in text[:500]


def by_chance(
    framework: str, code: Sequence[str], kinds: Sequence[str], pairs: Sequence[tuple[str, str]]
) -> bool:
    """Whether a changed cell changed by chance: only its values (texts and drawings) moved,
    after an unseeded draw. ``code``: the notebook's code cells up to this one; ``pairs``:
    each output before and after (a raster image is not read: its change is a change)."""
    if not set(kinds) <= {"changed", "image", "tolerance"} or not pairs:
        return False
    return all(values_only(a, b) for a, b in pairs) and unseeded_draw(framework, code)
