"""``make bench``'s guard against regressions: each figure printed beside the last release's
(``benchmarks/baseline.json``), and whether it moved beyond noise.

A figure here is a single run on a shared machine, or a median with its runs' min–max
(``12.3 s (11.0–14.2)``, from alternating pairs). The release's figure keeps the min–max of
its runs too. A figure moved only when its range and the release's, each widened by
:data:`NOISE`, do not meet: a guard that says "moved" when the machine was merely busy
would soon be ignored. Nothing fails: the guard says, the reader judges.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).resolve().parent.parent / "benchmarks" / "baseline.json"
NOISE = 0.25  # a single run's share of noise on a loaded 2-core machine
NUMBER = re.compile(r"(-?\d+(?:\.\d+)?)\s*(s|x|MB)?")
RANGE = re.compile(r"\((-?\d+(?:\.\d+)?)[–-](-?\d+(?:\.\d+)?)\)")


@cache
def baseline() -> dict[str, Any]:
    """The release's figures: ``{"release": …, "figures": {row name: {value, low, high}}}``."""
    try:
        found = json.loads(BASELINE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def read_figure(value: str) -> tuple[float, float, float, str] | None:
    """(figure, low, high, unit) of a printed value, None where it holds no number."""
    found = NUMBER.search(value.removeprefix("median "))
    if found is None:
        return None
    figure = float(found.group(1))
    spread = RANGE.search(value)
    low, high = (float(spread.group(1)), float(spread.group(2))) if spread else (figure, figure)
    return figure, low, high, found.group(2) or ""


def verdict(now: tuple[float, float, float, str], then: dict[str, Any]) -> str:
    """Whether ``now`` moved beyond noise from the release's figure ``then``."""
    low, high = float(then.get("low", then["value"])), float(then.get("high", then["value"]))
    if now[1] > high * (1 + NOISE):
        return "higher, beyond noise"
    if now[2] < low * (1 - NOISE):
        return "lower, beyond noise"
    return "within noise"


def beside(name: str, value: str) -> str:
    """`` [release: its figure; verdict]`` for a row the baseline holds; "" otherwise."""
    then = baseline().get("figures", {}).get(name)
    now = read_figure(value)
    if not isinstance(then, dict) or now is None or now[3] != then.get("unit", now[3]):
        return ""
    label = baseline().get("release", "last release")
    return f"   [{label}: {then['shown']}; {verdict(now, then)}]"


def record(log: str, release: str, measured: str) -> dict[str, Any]:
    """A baseline from a ``make bench`` log: each row's figure as :func:`show` printed it
    (its target and the last release's verdict left out)."""
    figures: dict[str, Any] = {}
    for line in log.splitlines():
        if not line.startswith("  ") or "  " not in line.strip():
            continue
        name, _, rest = line.strip().partition("  ")
        shown = rest.strip().split("   [", 1)[0].strip()
        found = read_figure(shown)
        bare = shown.removeprefix("median ").removeprefix("mean ")
        if found is None or not bare[:1].isdigit():
            continue  # a row that says why it measured nothing
        figure, low, high, unit = found
        figures[name.strip()] = {
            "shown": shown,
            "value": figure,
            "low": low,
            "high": high,
            "unit": unit,
        }
    return {"release": release, "measured": measured, "figures": figures}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="write benchmarks/baseline.json from a log")
    parser.add_argument("log", help="what `make bench` printed")
    parser.add_argument("--release", required=True, help='e.g. "main at 1a2b3c4"')
    parser.add_argument("--measured", required=True, help="where and how it was measured")
    args = parser.parse_args()
    text = Path(args.log).read_text(encoding="utf-8")
    made = record(text, args.release, args.measured)
    BASELINE.write_text(json.dumps(made, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{BASELINE}: {len(made['figures'])} figures")
