"""Text outputs compared by meaning: numbers within a tolerance, and the reprs of scalars,
arrays and tensors read for their values, so that ``np.float64(1.0)`` is ``1.0``,
``tensor([1., 2.])`` is ``Array([1., 2.], dtype=float32)``'s values and a column that
widened is the same table."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])")
# Wrappers whose first argument is the value: NumPy's scalars, arrays and tensors.
_SCALAR = (
    r"\bnp\.(?:float|int|uint|complex|bool|longdouble|clongdouble|half|single|double|str)\w*\("
)
_ARRAY = r"(?<![\w.])(?:tensor|Array|array|DeviceArray|masked_array|tf\.Tensor)\("
_TF_REPR = r"<tf\.(?:Tensor|Variable)\b[^:>]*:\s*"  # <tf.Tensor: shape=(), …, numpy=1.0>
WRAPPER = re.compile(f"{_SCALAR}|{_ARRAY}|{_TF_REPR}")
NP_BOOL = re.compile(r"\bnp\.(True|False)_")
DECORATION = re.compile(r"<NDArray [^>]*>|Parameter containing:\s*")
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_SPACE = re.compile(r"\s+")
_PUNCTUATION = re.compile(r"\s*([\[\](){},:;=])\s*")

Verdict = Literal["same", "tolerance", "changed"]


@dataclass(frozen=True)
class Canonical:
    """A text read for its values: the text with each number as ``#`` and spacing made
    uniform, the numbers in order, and the dtypes its reprs named."""

    skeleton: str
    numbers: tuple[str, ...]
    dtypes: tuple[str, ...]


def _closing(text: str, start: int, closer: str) -> int:
    """The index of ``closer`` that ends what opens before ``start`` (-1 if none)."""
    depth, quote = 0, ""
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == closer and depth == 0:
            return index
        elif char in _PAIRS:
            depth += 1
        elif char in _PAIRS.values():
            depth -= 1
    return -1


def _arguments(inner: str) -> list[str]:
    """``inner`` split at its top-level commas."""
    parts, depth, quote, start = [], 0, "", 0
    for index, char in enumerate(inner):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _PAIRS:
            depth += 1
        elif char in _PAIRS.values():
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inner[start:index])
            start = index + 1
    parts.append(inner[start:])
    return [p.strip() for p in parts if p.strip()]


def _dtype(value: str) -> str:
    """``torch.float32``, ``jnp.float32``, ``'float32'`` -> ``float32``."""
    return value.strip("'\" ").rpartition(".")[2]


def unwrap(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with every repr wrapper replaced by its value, and the dtypes they named."""
    text = DECORATION.sub("", NP_BOOL.sub(r"\1", text))
    dtypes: list[str] = []
    out, position = [], 0
    while (found := WRAPPER.search(text, position)) is not None:
        tf_repr = found.group().startswith("<")
        end = _closing(text, found.end(), ">" if tf_repr else ")")
        if end < 0:
            break  # cut short: left as it is
        value = ""
        for index, argument in enumerate(_arguments(text[found.end() : end])):
            key, equals, rest = argument.partition("=")
            named = equals and key.strip().isidentifier()
            if named and key.strip() == "dtype":
                dtypes.append(_dtype(rest))
            elif named and key.strip() == "numpy":
                value = rest
            elif not named and index == 0:
                value = argument
        inner, more = unwrap(value)
        dtypes += more
        out += [text[position : found.start()], inner]
        position = end + 1
    out.append(text[position:])
    return "".join(out), tuple(dtypes)


def canonical(text: str) -> Canonical:
    """``text`` read for its values (see :class:`Canonical`)."""
    plain, dtypes = unwrap(text)
    numbers = tuple(m.group() for m in NUMBER.finditer(plain))
    skeleton = _PUNCTUATION.sub(r"\1", _SPACE.sub(" ", NUMBER.sub("#", plain))).strip()
    return Canonical(skeleton, numbers, dtypes)


def _is_integer(text: str) -> bool:
    return text.lstrip("+-").isdigit()


def difference(a: str, b: str) -> float:
    """How far apart two numbers are (0 for two nans, or the same infinity)."""
    x, y = float(a), float(b)
    if math.isnan(x) and math.isnan(y):
        return 0.0
    if math.isinf(x) or math.isinf(y):
        return 0.0 if x == y else math.inf
    return abs(x - y)


def close(a: str, b: str, rtol: float, atol: float) -> bool:
    """Integers are equal, floats within ``atol + rtol * max(|a|, |b|)``."""
    if _is_integer(a) and _is_integer(b):
        return int(a) == int(b)
    gap = difference(a, b)
    if gap == 0 or math.isinf(gap):
        return gap == 0
    return gap <= atol + rtol * max(abs(float(a)), abs(float(b)))


def _first_line_change(a: str, b: str) -> str:
    lines_a, lines_b = a.splitlines(), b.splitlines()
    for number, (x, y) in enumerate(zip(lines_a, lines_b, strict=False), start=1):
        if x != y:
            return f"line {number}: {_short(x)} → {_short(y)}"
    return f"{len(lines_a)} lines → {len(lines_b)} lines"


def _short(text: str, width: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def compare_text(a: str, b: str, rtol: float, atol: float) -> tuple[Verdict, str]:
    """Whether ``b`` says what ``a`` says: the same text, the same values within the
    tolerance (written differently, or numbers moved a little), or changed; with a line
    saying how."""
    if a == b:
        return "same", ""
    left, right = canonical(a), canonical(b)
    if left.skeleton != right.skeleton or len(left.numbers) != len(right.numbers):
        return "changed", _first_line_change(a, b)
    old_types, new_types = dict.fromkeys(left.dtypes), dict.fromkeys(right.dtypes)
    if old_types and new_types and old_types != new_types:
        return "changed", f"dtype {', '.join(old_types)} → {', '.join(new_types)}"
    pairs = list(zip(left.numbers, right.numbers, strict=True))
    for x, y in pairs:
        if not close(x, y, rtol, atol):
            beyond = f"{x} → {y}, beyond rtol {rtol:g}, atol {atol:g}"
            return "changed", f"{_first_line_change(a, b)} ({beyond})"
    largest = max((difference(x, y) for x, y in pairs), default=0.0)
    if largest == 0:
        return "tolerance", f"the same values, written differently: {_first_line_change(a, b)}"
    return (
        "tolerance",
        f"numbers within rtol {rtol:g}, atol {atol:g} (largest difference {largest:.3g})",
    )
